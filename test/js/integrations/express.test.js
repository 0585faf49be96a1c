'use strict';

// customlabels/express on Express 4 and 5, read from outside: at every
// checkpoint the reader, from another process, must see exactly the
// request's method, route template and tenant on the server's thread
// (e2e/express.js).

const { REGISTERED, asPackage } = require('./harness');
const e2e = require('./e2e/express');

describe.each([
  ['express', 'by hand'],
  ['express4', 'by hand'],
  ['express', 'with customlabels/register'],
  ['express4', 'with customlabels/register'],
])('%s, wired %s', (expressModule, wiring) => {
  let result;

  beforeAll(async () => {
    const env = wiring === 'by hand' ? {} : REGISTERED;
    // Under register, express 4 is loaded as an app has it: `express`.
    const module = wiring !== 'by hand' && expressModule === 'express4' ? asPackage('express4', 'express') : expressModule;
    result = await e2e.run({ module, env });
  }, 180000);

  test('every request was served and the app exited cleanly', () => {
    expect(result.run.stderr).toBe('');
    expect(result.run.code).toBe(0);
    e2e.served(result);
  });

  test('at every checkpoint the reader sees exactly that request\'s labels on the server thread', () => {
    e2e.checkpoints(result);
  });

  test('requests interleaved: the checkpoints of different requests alternate', () => {
    const ids = result.run.checkpoints.map((c) => c.name.split(' ').pop());
    let switches = 0;
    for (let i = 1; i < ids.length; i++) if (ids[i] !== ids[i - 1]) switches += 1;
    // Strictly one request after another would give 23 switches for 24 requests.
    expect(switches).toBeGreaterThan(30);
  });
});
