'use strict';

// In-process profiles in test/versions: @datadog/pprof started by the app,
// or the copy Pyroscope's SDK depends on (0.4.13+ pin 5.14.4). The profile
// is what is read: each sample a checkpoint (what it shows, where a
// left-alone profiler must show none of the integrations' labels); hooks
// off, the app starts @datadog/pprof with useCPED. test/versions/suites.js
// says what a suite holds.

const e2e = require('../../js/integrations/e2e/pprof');
const { HTTP } = require('./labels');

module.exports = {
  published: HTTP,
  run: (entry, env, { wiring }) => e2e.runVersion({ profiler: entry.variant, unsupported: entry.expect === 'unsupported', env: { ...env, CUSTOMLABELS_FIXTURE_WIRING: wiring === 'register' ? 'register' : 'hand' } }),
  served: (result) => e2e.servedVersion(result),
  checkpoints: (result, entry) => e2e.checkpointsVersion(result, entry.variant),
  warnings: (result) => result.result.warnings,
  outcome: (entry, { hooks }) =>
    entry.expect === 'unsupported' ? 'one warning, unlabelled, no label wrong' : entry.variant === 'pyroscope' && hooks === 'off' ? 'no labels: one context per thread needs hooks (strategy() says so)' : 'labelled exactly, read from the profile',
  builders: {
    '@datadog/pprof': (v) => ({ set: { packages: { '@datadog/pprof': v } }, variant: 'pprof' }),
    '@pyroscope/nodejs': (v) => ({ set: { packages: { '@pyroscope/nodejs': v } }, variant: 'pyroscope' }),
  },
  hand: (entry, { unsupported }) => [
    entry('@datadog/pprof', '5.13.0', 'just outside: no runWithContext (the holders a frame gets are made through it)', unsupported),
    entry('@datadog/pprof', '5.14.4', "the one Pyroscope's SDK 0.4.13+ pins"),
    // Pyroscope's SDK before 0.4.13 takes the newest @datadog/pprof 5.x its
    // caret range allows, with which it never stops its profiler (its stop()
    // uploads nothing, and the process throws at exit), customlabels or not:
    // 0.4.12, just outside, runs with the 5.14.4 0.4.13 pins.
    entry('@pyroscope/nodejs', '0.4.12', 'just outside (its @datadog/pprof pinned to 5.14.4, as 0.4.13 does)', { ...unsupported, overrides: { '@datadog/pprof': '5.14.4' } }),
  ],
  notes: {
    '@datadog/pprof@5.14.0': 'runWithContext, a holder keeps its context at index 0',
    '@pyroscope/nodejs@0.4.13': 'pins @datadog/pprof 5.14.4',
    '@pyroscope/nodejs@0.6.4': 'uploads the raw pprof',
  },
};
