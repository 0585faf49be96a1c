'use strict';

// The per-request scope each soak mode opens, and how a check reads back what
// the running code sees inside it:
//   none    no scope at all (customlabels is not even loaded); nothing to check
//   als     a plain AsyncLocalStorage.run; reads its store
//   floor   als plus *empty* hooks of the kinds customlabels installs on this
//           Node.js version (what Node itself costs for those hooks)
//   labels  customlabels.withLabels; reads currentLabels(), i.e. the set the
//           thread's custom_labels_current_set points to, through the ABI
// current() returns a value for `matches(expected, seen)`.

const { AsyncLocalStorage } = require('node:async_hooks');
// Empty hooks of the kinds customlabels installs, as the benchmarks' floor.
const { floorHooks } = require('../../bench/modes');

const MODES = ['none', 'als', 'floor', 'labels'];

function sameLabels(expected, seen) {
  let n = 0;
  for (const key in seen) {
    if (seen[key] !== expected[key]) return false;
    n += 1;
  }
  return n === Object.keys(expected).length;
}

function createScopes(mode) {
  switch (mode) {
    case 'none':
      return { run: (labels, fn) => fn(), current: () => undefined, matches: () => true };
    case 'als':
    case 'floor': {
      const als = new AsyncLocalStorage();
      if (mode === 'floor') floorHooks();
      return {
        run: (labels, fn) => als.run(labels, fn),
        current: () => als.getStore(),
        matches: (expected, seen) => seen === expected,
      };
    }
    case 'labels': {
      const { withLabels, currentLabels } = require('../..');
      return { run: withLabels, current: currentLabels, matches: sameLabels };
    }
    default:
      throw new Error(`unknown mode '${mode}' (expected one of ${MODES.join(', ')})`);
  }
}

module.exports = { MODES, createScopes, sameLabels };
