'use strict';

// Next.js 15 and 16 (`next build`, then `next start`) with
// customlabels/register and no line of customlabels in the app
// (test/js/fixtures/next-app): every request's CPU carries `method` and
// `route` = the route pattern, never the raw path, read from outside at
// checkpoints in an app router route handler, a server component, a server
// action and a pages router API route; without OpenTelemetry, and with an
// SDK registered in instrumentation.js (then with the active span's ids).
// The Next.js installs are test/peers/next15 and next16; the app is copied
// there and built once per change of its files.

const path = require('node:path');
const { REGISTERED } = require('./harness');
const { testIf } = require('../helpers');
const e2e = require('./e2e/next');

const peers = path.join(__dirname, '..', '..', 'peers');
const [major, minor] = process.versions.node.split('.').map(Number);

// Next.js 16 needs Node.js >= 20.9.
const node20_9 = major > 20 || (major === 20 && minor >= 9);
describe.each([
  ['next15', 'without OpenTelemetry', true],
  ['next15', 'with an OpenTelemetry SDK in instrumentation.js', true],
  ['next16', 'without OpenTelemetry', node20_9],
  ['next16', 'with an OpenTelemetry SDK in instrumentation.js', node20_9],
])('%s under customlabels/register, %s', (peer, otel, runs) => {
  let result;
  const testHere = testIf(runs, 'Next.js 16 needs Node.js >= 20.9');

  beforeAll(async () => {
    if (runs) result = await e2e.run({ dir: path.join(peers, peer), otel: otel.startsWith('with'), env: REGISTERED });
  }, 400000);

  testHere(`${peer} ${otel}: every request was answered, and next start exited cleanly`, () => {
    expect(result.run.stderr).toBe('');
    expect(result.run.code).toBe(0);
    e2e.served(result);
  });

  testHere(`${peer} ${otel}: in the route handler, the server component, the server action and the pages API route the reader sees method, route pattern and tenant`, () => {
    e2e.checkpoints(result, { otel: otel.startsWith('with') });
  });
});
