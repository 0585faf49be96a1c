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
const { testIf, runNode } = require('../helpers');
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

// store.route has no renamed copy in test/versions (Next.js reads it itself:
// a release without it does not build), so its guard is tested here, on
// the work store's storage as register reaches it: a store without a route
// pattern is one warning naming it, and the route runs, unlabelled.
test('next: a work store without store.route is one warning naming it, and the route runs unlabelled', async () => {
  const run = (first) =>
    runNode(
      `const integration = require('./lib/integrations/next/integration');
      const { readConfig } = require('./lib/register/config');
      const { currentLabels } = require('.');
      const warnings = [];
      process.on('warning', (w) => warnings.push(w.code + ': ' + w.message));
      const storage = { run: (store, fn, ...args) => fn(...args) };
      integration.apply(integration.reach[0], { workAsyncStorage: storage }, { version: '16.4.6', config: readConfig({}).config });
      const seen = [storage.run(${first}, () => currentLabels()), storage.run({ route: '/u/[id]' }, () => currentLabels())];
      setImmediate(() => console.log(JSON.stringify({ seen, warnings })));`,
    );
  const [moved, named] = await Promise.all([run("{ routeMoved: '/u/[id]' }"), run("{ route: '/v/[id]' }")]);
  // The first store decides, for the process.
  expect(JSON.parse(moved.stdout)).toEqual({
    seen: [{}, {}],
    warnings: [expect.stringMatching(/^CUSTOMLABELS_UNSUPPORTED_FRAMEWORK: customlabels\/next: next 16\.4\.6 is not supported \(supported: next 15\.x \|\| 16\.x\): store\.route, of the work store .* is missing\./)],
  });
  expect(named.stderr).toBe('');
  expect(JSON.parse(named.stdout)).toEqual({ seen: [{ route: '/v/[id]' }, { route: '/u/[id]' }], warnings: [] });
});
