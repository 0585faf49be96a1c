'use strict';

// customlabels/pprof in worker threads: a Piscina worker that profiles
// itself with @datadog/pprof (customlabels/register follows its profiler
// there) runs tasks handed to it from scopes of three tenants in the ratio
// 1:2:3 (customlabels/worker); its profile gives each tenant its share of
// CPU and of wall samples within 3 points, each labelled sample carries the
// task's tenant and the worker's own label, and idle samples none.

const { REGISTERED } = require('./harness');
const e2e = require('./e2e/pprof');
const { findFrames } = require('../../../lib/core/frames');

const frames = findFrames().reason === undefined;
const cases = {
  'one context per thread': {},
  ...(frames ? { 'useCPED, hooks on': { CUSTOMLABELS_FIXTURE_CPED: '1' }, 'useCPED, hooks off': { CUSTOMLABELS_FIXTURE_CPED: '1', CUSTOMLABELS_HOOKS: '0' } } : {}),
};
if (!frames) process.stderr.write(`pprof-workers.test.js: no AsyncContextFrame in Node.js ${process.version}: the useCPED cases run under Node 24 and 26 in CI\n`);

describe.each(Object.keys(cases))('a Piscina worker profiling itself, %s', (name) => {
  let r;
  beforeAll(async () => {
    r = await e2e.untilRatio(() => e2e.runWorkers({ env: { ...REGISTERED, ...cases[name] } }), (s) => s.labels.tenant !== undefined);
  }, 120000);

  test(`${name}: the worker's profiler is followed there`, () => {
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.result.strategy.map((s) => s.context)).toEqual([cases[name].CUSTOMLABELS_FIXTURE_CPED === '1' ? 'frame' : 'global']);
  });
  // (The worker's own label is a scope inside the sender's: a sample can
  // land between the two, as a reader from outside would see it.)
  test(`${name}: the samples of tasks carry their tenant and the worker's label; the shares are the ratio sent, within 3 points`, () => {
    const tasks = r.samples.filter((s) => s.labels.tenant !== undefined);
    expect(tasks.length).toBeGreaterThan(200);
    for (const s of tasks) expect(s.labels).toEqual({ tenant: expect.stringMatching(/^t[123]$/), ...(s.labels.pool === undefined ? {} : { pool: 'piscina' }) });
    expect(tasks.filter((s) => s.labels.pool === 'piscina').length / tasks.length).toBeGreaterThan(0.98);
    e2e.expectRatio(tasks);
  });
  test(`${name}: idle samples carry none of the labels`, () => e2e.expectIdleUnlabelled(r.samples, ['tenant', 'pool']));
});
