'use strict';

// customlabels/fastify on Fastify 4 and 5, read from outside: from
// onRequest on, every later hook, the body parser, the handler, onSend and
// onResponse run with exactly the request's method, route and tenant
// (e2e/fastify.js).

const { REGISTERED, asPackage } = require('./harness');
const e2e = require('./e2e/fastify');

describe.each([
  ['fastify', 'by hand'],
  ['fastify4', 'by hand'],
  ['fastify', 'with customlabels/register'],
  ['fastify4', 'with customlabels/register'],
])('%s, wired %s', (fastifyModule, wiring) => {
  let result;

  beforeAll(async () => {
    const registered = wiring !== 'by hand';
    // Under register, Fastify 4 is loaded as an app has it: `fastify`.
    const module = registered && fastifyModule === 'fastify4' ? asPackage('fastify4', 'fastify') : fastifyModule;
    result = await e2e.run({ module, env: registered ? REGISTERED : {} });
  }, 180000);

  test('every request was served and the app exited cleanly', () => {
    expect(result.run.stderr).toBe('');
    expect(result.run.code).toBe(0);
    e2e.served(result);
  });

  test('at every checkpoint the reader sees exactly that request\'s labels on the server thread', () => {
    e2e.checkpoints(result);
  });
});
