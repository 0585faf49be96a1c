'use strict';

// What customlabels hands an @datadog/pprof wall profiler as its context,
// and how the profile's labels come out of it.
//
// The profiler keeps, per sample, the context current when the sample was
// taken (a JS value, by reference), and turns it into pprof labels when the
// profile is serialized, through the generateLabels its host passes to
// stop(). customlabels' context is a ProfileContext: the host's own context
// (Pyroscope's { labels }, dd-trace's span context, an app's value; or
// undefined) next to customlabels' set. The host only ever sees its own:
// getContext() answers `host`, and its generateLabels is called with `host`
// in place of the ProfileContext; customlabels' labels are added to what it
// returns, cut to what the Parca agent keeps (kit/limits.js), the host's
// winning a key both have.

const { keptLabels } = require('../kit/limits');

class ProfileContext {
  constructor(host, set) {
    this.host = host;
    this.set = set; // a LabelSet, or null
  }
}

// The host's value, where `value` may be a ProfileContext.
const hostOf = (value) => (value instanceof ProfileContext ? value.host : value);

// The labels of `set` as the profile shows them, remembered per set (and
// made again once a span's set took new labels in place: its id changes,
// lib/core/label-set.js retargetSet).
function labelCache(labelsOf) {
  const cache = new WeakMap();
  return (set) => {
    let entry = cache.get(set);
    if (entry === undefined || entry.id !== set.id) {
      entry = { id: set.id, labels: Object.freeze(keptLabels(labelsOf(set))) };
      cache.set(set, entry);
    }
    return entry.labels;
  };
}

const isObject = (v) => v !== null && typeof v === 'object';

// The generateLabels to serialize with, over the host's `generate` (or
// none: the profiler then takes the context itself as the labels).
// `labelsOfSet(set)`: the labels of a set. Never throws where the host's
// would not have: a failure of customlabels' part leaves the host's labels.
function mergeLabels(generate, labelsOfSet) {
  const theirs = (args, host) => {
    if (typeof generate !== 'function') return host ?? {};
    if (host === args.context.context) return generate(args);
    return generate({ ...args, context: { ...args.context, context: host } });
  };
  return function generateLabels(args) {
    const value = args?.context?.context;
    if (!(value instanceof ProfileContext)) {
      if (typeof generate === 'function') return generate(args);
      return args?.context === undefined ? {} : (value ?? {});
    }
    const host = theirs(args, value.host);
    let own = null;
    try {
      if (value.set !== null) own = labelsOfSet(value.set);
    } catch {
      own = null;
    }
    if (own === null) return host;
    if (!isObject(host)) return own;
    for (const key in host) {
      if (Object.prototype.hasOwnProperty.call(host, key)) return { ...own, ...host };
    }
    return own;
  };
}

module.exports = { ProfileContext, hostOf, labelCache, mergeLabels };
