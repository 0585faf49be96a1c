'use strict';

// customlabels/pprof in the table of integrations (lib/integrations/index.js).

const { defineIntegration } = require('../kit/integration');

const PPROF = '@datadog/pprof';
const PYROSCOPE = '@pyroscope/nodejs';
const patch = () => require('./patch');
const unpatch = () => patch().unpatchPprof();
const out = (file) => `@datadog/pprof/out/src/${file}`;

const integration = defineIntegration({
  name: 'pprof',
  title: 'In-process profiles (@datadog/pprof, Pyroscope)',
  subpath: './pprof',
  labels: [],
  packages: { [PPROF]: '>=5.14.0 <6', [PYROSCOPE]: '>=0.4.13 <0.7' },
  internals: [
    {
      package: PPROF,
      of: 'time',
      name: "time.runWithContext, and the entry it adds to Node.js's AsyncContextFrame (a holder, its context at index 0)",
      why: 'the profiler keeps its context per async context under an AsyncLocalStorage of its own, not exported; a frame customlabels makes gets that entry (a holder the profiler made once per set) before it is current, instead of a second frame per scope (the entry is found by a probe when the profiler starts)',
      check: (time) => typeof time.runWithContext === 'function',
      double: { edits: [[out('index.js'), 'runWithContext', 'runWithContextMoved']] },
    },
    {
      package: PPROF,
      of: 'time',
      name: 'time.getState()[time.constants.kSampleCount]',
      why: 'with one context per thread, a context a sample has taken must not change; the sample count says whether one has (exported, undocumented)',
      check: (time) => Number.isInteger(time.constants.kSampleCount),
      double: { edits: [[out('time-profiler.js'), 'exports.constants = {\n    kSampleCount,', 'exports.constants = {\n    kSampleCountMoved: kSampleCount,']] },
    },
  ],
  reach: [
    { kind: 'module', package: PPROF, patch: (pprof, context) => patch().patchPprof(pprof, context), unpatch },
    // Its own @datadog/pprof, loaded with it, is followed then (above);
    // here its version is checked (and its profiler found, should it have
    // been loaded in a way register does not see).
    {
      kind: 'module',
      package: PYROSCOPE,
      patch: (pyroscope, context) => patch().patchPyroscope(pyroscope, context),
      outside: (pyroscope, context) => patch().leavePyroscope(pyroscope, context),
      unpatch,
    },
  ],
});

module.exports = integration;
