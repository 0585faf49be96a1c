'use strict';

// customlabels/pprof in the table of integrations (lib/integrations/index.js).

const { defineIntegration } = require('../kit/integration');

const PPROF = '@datadog/pprof';
const PYROSCOPE = '@pyroscope/nodejs';

const core = () => require('../../core').mirrors;

const integration = defineIntegration({
  name: 'pprof',
  title: 'In-process profiles (@datadog/pprof, Pyroscope)',
  subpath: './pprof',
  packages: { [PPROF]: '>=5.14.0 <6', [PYROSCOPE]: '>=0.4.13 <0.7' },
  internals: [
    {
      package: PPROF,
      name: "the entry runWithContext() adds to Node.js's AsyncContextFrame, and a holder's index 0",
      why: 'the profiler keeps its context per async context under an AsyncLocalStorage of its own, not exported; a frame customlabels makes gets that entry (a holder the profiler made once per set) before it is current, instead of a second frame per scope',
    },
    {
      package: PPROF,
      name: 'time.getState()[time.constants.kSampleCount]',
      why: 'with one context per thread, a context a sample has taken must not change; the sample count says whether one has (exported, undocumented)',
    },
  ],
  reach: [
    { kind: 'module', package: PPROF, patch: (pprof, { version }) => require('./patch').patchPprof(integration, pprof, core(), version) },
    // Its own @datadog/pprof, loaded with it, is followed then (above);
    // here its version is checked (and its profiler found, should it have
    // been loaded in a way register does not see).
    {
      kind: 'module',
      package: PYROSCOPE,
      patch: (pyroscope, { version }) => require('./patch').patchPyroscope(integration, pyroscope, core(), version),
      outside: (pyroscope, { version }) => require('./patch').leavePyroscope(pyroscope, version),
    },
  ],
  unpatch: () => require('./patch').unpatchPprof(),
});

module.exports = integration;
