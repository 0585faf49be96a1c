'use strict';

// The route labels of the HTTP integrations: one frozen { route } object per
// template, so that withLabels finds the set it built the first time by
// identity instead of reading and encoding labels per request. Templates
// come from the app's routes, so a cache holds a few entries; the bounds
// only guard against an app that makes routes at run time (past them,
// labels are made per request, still right).

const MAX_CACHED = 256;

class RouteLabels {
  constructor(max = MAX_CACHED) {
    this.max = max;
    this.byTemplate = new Map();
  }

  // The frozen { route: template }.
  of(template) {
    let labels = this.byTemplate.get(template);
    if (labels === undefined) {
      labels = Object.freeze({ route: template });
      if (this.byTemplate.size < this.max) this.byTemplate.set(template, labels);
    }
    return labels;
  }
}

// A bounded memo kept on `owner` (a route, a layer: objects the app made)
// under `key` (a Symbol of the caller): compute(k) once per k.
function memoOn(owner, key, k, compute, max = MAX_CACHED) {
  let memo = owner[key];
  if (memo === undefined) {
    memo = new Map();
    if (Object.isExtensible(owner)) Object.defineProperty(owner, key, { value: memo });
  }
  let value = memo.get(k);
  if (value === undefined) {
    value = compute(k);
    if (memo.size < max) memo.set(k, value);
  }
  return value;
}

module.exports = { RouteLabels, memoOn, MAX_CACHED };
