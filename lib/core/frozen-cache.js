'use strict';

// Caches the set a labels object makes over a parent set, keyed by the
// object's identity. Only a frozen plain object whose properties are data
// properties holding primitives is ever cached: it cannot change, so a hit
// needs no further check.

const { types } = require('node:util');

function hasOnlyDataProperties(object) {
  const descriptors = Object.getOwnPropertyDescriptors(object);
  for (const key in descriptors) {
    if (!('value' in descriptors[key])) return false;
  }
  return true;
}

class FrozenCache {
  constructor() {
    this.roots = new WeakMap(); // children of "no labels"; a set's own are on set.children
  }

  // The cached set (a LabelSet or null) for `labels` over `parent`, or
  // undefined.
  get(parent, labels) {
    const cache = parent === null ? this.roots : parent.children;
    if (cache === undefined || typeof labels !== 'object' || labels === null) return undefined;
    return cache.get(labels);
  }

  // Caches `set` if `labels` qualifies; `primitive` tells whether every value
  // read from it was a primitive.
  remember(parent, labels, set, primitive) {
    if (!primitive || !Object.isFrozen(labels) || types.isProxy(labels) || types.isMap(labels)) return;
    if (!hasOnlyDataProperties(labels)) return;
    if (parent === null) {
      this.roots.set(labels, set);
    } else {
      if (parent.children === undefined) parent.children = new WeakMap();
      parent.children.set(labels, set);
    }
  }
}

module.exports = { FrozenCache };
