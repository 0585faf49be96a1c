'use strict';

// customlabels/pprof with the real profilers: @datadog/pprof's wall
// profiler started by the app, and the one Grafana Pyroscope's Node.js SDK
// starts (its upload received by an HTTP endpoint here). An Express service
// gets many short requests of three tenants in the ratio 1:2:3, each burning
// CPU across a timer, a file read and microtasks; the profile, decoded as
// pprof, must give each tenant its share of CPU and of wall samples within
// 3 points, the integrations' route templates, the span ids of the spans the
// SDK exported, the SDK's own labels beside ours, and none of ours on idle
// samples. Every way the profiler can keep its context on this Node.js:
// one per thread (switched by the hooks), and, where AsyncLocalStorage runs
// on AsyncContextFrame, one per async context (hooks on and off). The
// profiler started before customlabels loads, after, and customlabels
// loaded twice give the same. Worker threads: test/js/integrations/
// pprof-workers.test.js.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { REGISTERED } = require('./harness');
const e2e = require('./e2e/pprof');
const { findFrames } = require('../../../lib/core/frames');
const { root, addonPath, testIf, copyPackage } = require('../helpers');

// Whether this Node.js can keep a context per async context. (Where it
// cannot, the useCPED cases are replaced by what a user there gets; CI runs
// them under Node.js 26, 24 and 22 with its flag.)
const frames = findFrames().reason === undefined;
// Pyroscope's SDK (0.5+) needs Node.js >= 20.20.2: the Pyroscope cases skip
// under Node 18, saying so (0.4, which runs there, is in test:versions).
const [major, minor, patch] = process.versions.node.split('.').map(Number);
const pyroscopeRuns = major > 20 || (major === 20 && (minor > 20 || (minor === 20 && patch >= 2)));
const testPyroscope = testIf(pyroscopeRuns, "Pyroscope's Node.js SDK 0.6 needs Node.js >= 20.20.2");

// In this process: `tenant`'s labels over at least 40 turns and 200 ms of
// CPU (a loaded machine still gets its samples).
let sink = 0;
const spin = async (tenant) =>
  require('../../..').withLabels({ tenant }, async () => {
    const from = process.cpuUsage();
    const used = () => {
      const now = process.cpuUsage();
      return (now.user + now.system - from.user - from.system) / 1000;
    };
    for (let i = 0; i < 40 || used() < 200; i++) {
      for (let j = 0; j < 200000; j++) sink = (sink * 31 + j) % 1000003;
      await new Promise((r) => setImmediate(r));
    }
  });

const onWork = (s) => s.labels.route === '/t/:tenant/work';
// Each sample in a tenant's own loop labelled with that tenant, and the
// tenants' shares of the work the ratio sent.
function expectTenants(samples) {
  e2e.expectOwnLoopsLabelled(samples);
  e2e.expectRatio(samples, onWork);
}
const ours = (s) => ['tenant', 'route', 'method'].some((k) => k in s.labels);

// The labels customlabels gave the samples of /t/:tenant/work: method,
// route template and tenant, exactly.
function expectRouteLabels(samples) {
  const shapes = new Set(samples.filter(onWork).map((s) => JSON.stringify({ method: s.labels.method, route: s.labels.route, tenant: /^t[123]$/.test(s.labels.tenant) })));
  expect([...shapes]).toEqual([JSON.stringify({ method: 'GET', route: '/t/:tenant/work', tenant: true })]);
}

function expectServed(r, context) {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.result.warnings).toEqual([]);
  expect(r.result.strategy.map((s) => s.context)).toEqual([context]);
}

const PYROSCOPE = { CUSTOMLABELS_FIXTURE_PROFILER: 'pyroscope' };
const PPROF = { CUSTOMLABELS_FIXTURE_PROFILER: 'pprof' };
const CPED = { CUSTOMLABELS_FIXTURE_PROFILER: 'pprof', CUSTOMLABELS_FIXTURE_CPED: '1' };
const HAND = { CUSTOMLABELS_FIXTURE_WIRING: 'hand' };
const HOOKS_OFF = { CUSTOMLABELS_HOOKS: '0' };

describe('Pyroscope SDK (one context per thread), with customlabels/register', () => {
  let r;
  beforeAll(async () => {
    if (pyroscopeRuns) r = await e2e.untilRatio(() => e2e.run({ env: { ...REGISTERED, ...PYROSCOPE }, kinds: { work: 60, sdk: 10 } }), onWork);
  }, 120000);

  testPyroscope('one upload, its pprof decoded; customlabels switches the global context', () => {
    expectServed(r, 'global');
    expect(r.uploads.map((u) => /[?&]spyName=nodespy\b/.test(u.url))).toEqual([true]);
  });
  testPyroscope("Pyroscope SDK: every sample in a tenant's own loop carries that tenant; tenants' shares of CPU and of wall samples are the ratio sent, within 3 points", () => {
    expectTenants(r.samples);
  });
  testPyroscope('samples carry the route template, the method and the tenant header', () => {
    expectRouteLabels(r.samples);
  });
  testPyroscope("the SDK's own wrapWithLabels labels keep working, beside customlabels'", () => {
    const sdk = r.samples.filter((s) => s.labels.sdk === 'wrapped');
    expect(sdk.length).toBeGreaterThan(0);
    for (const s of sdk) expect(s.labels).toEqual({ sdk: 'wrapped', method: 'GET', route: '/t/:tenant/sdk', tenant: expect.stringMatching(/^t[123]$/) });
  });
  testPyroscope('Pyroscope SDK: idle samples carry none of the labels', () => {
    e2e.expectIdleUnlabelled(r.samples);
  });
});

describe('@datadog/pprof started by the app, one context per thread, with customlabels/register', () => {
  let r;
  beforeAll(async () => {
    r = await e2e.untilRatio(() => e2e.run({ env: { ...REGISTERED, ...PPROF }, kinds: { work: 60 } }), onWork);
  }, 120000);

  test('served; customlabels switches the global context', () => expectServed(r, 'global'));
  test("every sample in a tenant's own loop carries that tenant; tenants' shares of CPU and of wall samples are the ratio sent, within 3 points", () => expectTenants(r.samples));
  test('route template, method and tenant', () => expectRouteLabels(r.samples));
  test("the app's own generateLabels is merged, not replaced", () => {
    const labelled = r.samples.filter(onWork);
    expect(labelled.length).toBeGreaterThan(0);
    for (const s of labelled) expect(s.labels.service).toBe('shop');
  });
  test('idle samples carry none of the labels', () => e2e.expectIdleUnlabelled(r.samples));
});

describe('@datadog/pprof with useCPED (a context per async context)', () => {
  if (!frames) {
    // In this process: @datadog/pprof itself refuses useCPED below Node.js
    // 22.7 (its start throws, as it would without customlabels); on 22
    // without the flag it starts, and a context per async context would not
    // follow continuations: no labels of customlabels' are better than wrong
    // ones.
    test("where AsyncLocalStorage does not run on AsyncContextFrame: the profiler's own answer to useCPED, none of customlabels' labels, and strategy() says why", async () => {
      const pprof = require('@datadog/pprof');
      const { instrument, strategy } = require('../../../lib/integrations/pprof');
      expect(instrument(pprof)).toBe(true);
      let refused = null;
      try {
        pprof.time.start({ intervalMicros: 250, durationMillis: 20000, withContexts: true, useCPED: true });
      } catch (err) {
        refused = err;
      }
      if (refused !== null) {
        // (Below 22.7, where V8 has no continuation data to keep it on.)
        expect([major < 22 || (major === 22 && minor < 7), refused]).toEqual([true, expect.objectContaining({ name: 'TypeError', message: 'useCPED is not supported on this Node.js version.' })]);
        expect(strategy()).toEqual([expect.objectContaining({ context: 'none', reason: 'the profiler has not started' })]);
        return;
      }
      let profile;
      try {
        expect(strategy()).toEqual([expect.objectContaining({ context: 'none', reason: 'useCPED: the profiler reads no context from AsyncContextFrame here' })]);
        await spin('a');
      } finally {
        profile = pprof.time.stop();
      }
      const samples = e2e.decode(pprof.encodeSync(profile));
      expect(samples.length).toBeGreaterThan(0);
      expect(samples.filter(ours)).toEqual([]);
    }, 60000);
    return;
  }
  for (const [name, env] of [
    ['hooks on', {}],
    ['hooks off', HOOKS_OFF],
  ]) {
    let r;
    beforeAll(async () => {
      r = await e2e.untilRatio(() => e2e.run({ env: { ...REGISTERED, ...CPED, ...env }, kinds: { work: 60 } }), onWork);
    }, 120000);
    test(`${name}: served; each scope's frame carries the profiler's entry`, () => {
      expectServed(r, 'frame');
      expect(r.result.mode.hooks).toBe(name === 'hooks on');
    });
    test(`${name}: every sample in a tenant's own loop carries that tenant; tenants' shares of CPU and of wall samples are the ratio sent, within 3 points`, () => expectTenants(r.samples));
    test(`${name}: route template, method and tenant; the app's generateLabels merged`, () => {
      expectRouteLabels(r.samples);
      for (const s of r.samples.filter(onWork)) expect(s.labels.service).toBe('shop');
    });
    test(`${name}: idle samples carry none of the labels`, () => e2e.expectIdleUnlabelled(r.samples));
  }
});

// Pyroscope's SDK starts the profiler without useCPED: one context per
// thread, which only hooks switch. (Where AsyncLocalStorage does not run on
// AsyncContextFrame, CUSTOMLABELS_HOOKS=0 cannot turn them off.)
describe('Pyroscope SDK with hooks off', () => {
  let r;
  beforeAll(async () => {
    if (pyroscopeRuns) r = await e2e.run({ env: { ...REGISTERED, ...PYROSCOPE, ...HOOKS_OFF }, kinds: { work: 20, sdk: 10 } });
  }, 120000);
  if (frames) {
    testPyroscope("no labels of customlabels' (a global context nothing switches would be wrong), and strategy() says why", () => {
      expect(r.stderr).toBe('');
      expect(r.result.mode.hooks).toBe(false);
      expect(r.result.strategy).toEqual([
        { profiler: expect.stringMatching(/^@datadog\/pprof 5\./), context: 'none', reason: expect.stringMatching(/one context per thread, which only hooks switch, and they are off/) },
      ]);
      expect(r.samples.filter(ours)).toEqual([]);
      expect(r.samples.some((s) => s.labels.sdk === 'wrapped')).toBe(true);
    });
  } else {
    testPyroscope('where hooks cannot be off, they stay on, and customlabels switches the global context', () => {
      expect(r.result.mode.hooks).toBe(true);
      expectServed(r, 'global');
      expectRouteLabels(r.samples);
    });
  }
});

describe('by hand: the profiler started before customlabels loads, after it, and customlabels loaded twice', () => {
  let copy;
  beforeAll(() => {
    // A second copy of the package (its own lib/ and addon file).
    copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-pprof-copy-')), 'customlabels');
    copyPackage(copy);
  });
  afterAll(() => fs.rmSync(path.dirname(copy), { recursive: true, force: true }));

  // One profiler of each kind of context this Node.js has.
  const profilers = { 'Pyroscope SDK': PYROSCOPE, ...(frames ? { '@datadog/pprof with useCPED': CPED } : { '@datadog/pprof': PPROF }) };
  const orders = {
    'started after customlabels loads': {},
    'started before customlabels loads': { CUSTOMLABELS_FIXTURE_ORDER: 'profiler-first' },
    'customlabels loaded twice': { CUSTOMLABELS_FIXTURE_COPY: 'copy' },
  };
  for (const [profiler, env] of Object.entries(profilers)) {
    for (const [order, extra] of Object.entries(orders)) {
      (env === PYROSCOPE ? testPyroscope : test)(`${profiler}, ${order}: the same shares, routes and strategy`, async () => {
        const more = extra.CUSTOMLABELS_FIXTURE_COPY === undefined ? extra : { CUSTOMLABELS_FIXTURE_COPY: copy };
        const r = await e2e.untilRatio(() => e2e.run({ env: { ...HAND, ...env, ...more }, kinds: { work: 60 } }), onWork);
        expectServed(r, env.CUSTOMLABELS_FIXTURE_CPED === '1' ? 'frame' : 'global');
        expectTenants(r.samples);
        expectRouteLabels(r.samples);
      }, 120000);
    }
  }
});

describe('OpenTelemetry: span ids on samples', () => {
  const cases = { "Pyroscope's SDK": PYROSCOPE, 'one context per thread': PPROF, ...(frames ? { 'a context per async context': CPED } : {}) };
  for (const [name, env] of Object.entries(cases)) {
    (env === PYROSCOPE ? testPyroscope : test)(`${name}: every sample of a span carries its exported trace and span ids and its tenant`, async () => {
      const inBurns = (s) => s.labels.tenant !== undefined && s.frames.some((f) => f !== undefined && f.includes('burn'));
      const r = await e2e.untilRatio(() => e2e.run({ env: { ...REGISTERED, ...env, CUSTOMLABELS_FIXTURE_OTEL: '1' }, kinds: { spans: 40 } }), inBurns);
      expect(r.stderr).toBe('');
      const spans = new Map(r.result.spans.filter((s) => s.name.startsWith('work ')).map((s) => [s.span_id, s]));
      expect(spans.size).toBe(240);
      const inSpans = r.samples.filter((s) => s.labels.span_id !== undefined && spans.has(s.labels.span_id));
      // Samples of the burns: each labelled with its span's ids and tenant.
      const burning = r.samples.filter(inBurns);
      expect(burning.length).toBeGreaterThan(100);
      for (const s of burning) {
        const span = spans.get(s.labels.span_id);
        expect({ span: span === undefined ? 'none' : 'exported', trace: s.labels.trace_id === span?.trace_id, tenant: s.labels.tenant === span?.tenant }).toEqual({ span: 'exported', trace: true, tenant: true });
      }
      expect(inSpans.length).toBeGreaterThanOrEqual(burning.length);
      e2e.expectOwnLoopsLabelled(r.samples);
      e2e.expectRatio(burning);
    }, 120000);
  }
});

// In this process: the profiler stopped with restart (as Pyroscope's SDK
// flushes), stopped, and started again.
test('a profiler restarted, and one started again, is followed: each profile has the labels of its own window', async () => {
  const pprof = require('@datadog/pprof');
  const { instrument, strategy } = require('../../../lib/integrations/pprof');
  expect(instrument(pprof)).toBe(true);
  const start = () => pprof.time.start({ intervalMicros: 250, durationMillis: 20000, withContexts: true, collectCpuTime: true, useCPED: frames });
  const tenantsOf = (profile) => [...new Set(e2e.decode(pprof.encodeSync(profile)).map((s) => s.labels.tenant).filter(Boolean))];
  start();
  expect(strategy().map((s) => s.context)).toEqual([frames ? 'frame' : 'global']);
  await spin('a');
  const first = pprof.time.stop(true);
  await spin('b');
  const second = pprof.time.stop();
  expect(strategy().map((s) => s.context)).toEqual(['none']);
  start();
  expect(strategy().map((s) => s.context)).toEqual([frames ? 'frame' : 'global']);
  await spin('c');
  const third = pprof.time.stop();
  expect([tenantsOf(first), tenantsOf(second), tenantsOf(third)]).toEqual([['a'], ['b'], ['c']]);
}, 60000);

describe('bad input and versions it does not support', () => {
  const { instrument } = require('../../../lib/integrations/pprof');

  test('a profiler whose time profiler lacks what the patch relies on is left alone, with one warning', () => {
    const real = require('@datadog/pprof');
    const { runWithContext, ...rest } = real.time;
    const moved = { time: { ...rest } };
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      expect(instrument(moved)).toBe(false);
      expect(instrument(moved)).toBe(false);
      expect(emitWarning.mock.calls.filter((c) => c[1].code !== 'CUSTOMLABELS_OTHER_WRITER').map((c) => [c[1].code, c[0]])).toEqual([
        ['CUSTOMLABELS_UNSUPPORTED_FRAMEWORK', expect.stringMatching(/^customlabels\/pprof: @datadog\/pprof of an unknown version is not supported \(supported: @datadog\/pprof >=5\.14\.0 <6\): time\.runWithContext, and the entry it adds to .* is missing\. It is left unpatched/)],
      ]);
    } finally {
      emitWarning.mockRestore();
    }
    expect(moved.time.start).toBe(rest.start);
  });
  test.each([[undefined], [null], [42], ['@datadog/pprof'], [{}]])('instrument(%p) is a TypeError with a stable code', (v) => {
    expect(() => instrument(v)).toThrow(expect.objectContaining({ name: 'TypeError', code: 'ERR_CUSTOMLABELS_INVALID_ARG_TYPE' }));
  });
});
