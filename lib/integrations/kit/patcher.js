'use strict';

// Patching what a framework exposes, once, with a way back: every
// integration wraps methods (and module exports) through a Patcher, never by
// hand.
//
//   const patcher = new Patcher('express');
//   patcher.wrap(Layer.prototype, 'handle_request', (original) => function (req, res, next) { ... });
//   patcher.unwrapAll(); // tests: everything back as it was
//
// A wrapper takes the original's name and length, so what an app reads of
// the method it finds is what it would read without customlabels.
//
// A method is wrapped once per target, whichever copy of customlabels asks
// (the record of what is wrapped is kept on the target under a Symbol.for
// key), so two copies of the package, or register and an app's own line,
// never wrap it twice. Wrappers carry no shimmer markers: OpenTelemetry's
// and dd-trace's instrumentations wrap the same methods before or after,
// and each sees the other's function as the original.
//
// unwrapAll() restores each original exactly (an own property as it was, an
// inherited one by deleting ours). A wrapper something else has wrapped
// since cannot be taken out from under it: it stays (unwrapAll() says how
// many stayed), and the integration's own state, reset by its unpatch(),
// makes it pass calls through.

const hasOwn = Object.prototype.hasOwnProperty;
const kWrapped = Symbol.for('customlabels.wrapped'); // on a target: Map method -> record

class Patcher {
  constructor(name) {
    this.name = name;
    this.records = [];
  }

  // Whether target[method] is wrapped by customlabels (any copy).
  static isWrapped(target, method) {
    return target !== null && (typeof target === 'object' || typeof target === 'function') && hasOwn.call(target, kWrapped) && target[kWrapped].has(method);
  }

  // Replaces target[method] (a function, own or inherited) with
  // make(original), unless customlabels wrapped it already; true if it did.
  wrap(target, method, make) {
    if (target === null || (typeof target !== 'object' && typeof target !== 'function')) return false;
    const original = target[method];
    if (typeof original !== 'function' || Patcher.isWrapped(target, method)) return false;
    const wrapper = make(original);
    if (typeof wrapper !== 'function') throw new TypeError(`${this.name}: the wrapper of ${method} is not a function`);
    // What an app can read of the function it finds there stays the
    // original's: its name and its length.
    for (const key of ['name', 'length']) {
      const d = Object.getOwnPropertyDescriptor(wrapper, key);
      if (d !== undefined && d.configurable && wrapper[key] !== original[key]) Object.defineProperty(wrapper, key, { value: original[key], configurable: true });
    }
    const own = Object.getOwnPropertyDescriptor(target, method);
    if (own !== undefined && !own.configurable && !own.writable) return false; // fixed: leave it
    // The record first: a target it cannot be kept on (not extensible) is
    // left as it is, never wrapped with no way back.
    if (!hasOwn.call(target, kWrapped)) {
      if (!Object.isExtensible(target)) return false;
      Object.defineProperty(target, kWrapped, { value: new Map(), configurable: true });
    }
    if (own === undefined || own.configurable) {
      Object.defineProperty(target, method, {
        value: wrapper,
        writable: true,
        enumerable: own === undefined ? false : own.enumerable,
        configurable: true,
      });
    } else {
      target[method] = wrapper;
    }
    const record = { target, method, own, wrapper };
    target[kWrapped].set(method, record);
    this.records.push(record);
    return true;
  }

  // Restores everything this patcher wrapped, newest first; returns how many
  // wrappers had to stay (wrapped over since).
  unwrapAll() {
    let stayed = 0;
    for (const record of this.records.reverse()) {
      const { target, method, own, wrapper } = record;
      target[kWrapped].delete(method);
      if (target[kWrapped].size === 0) delete target[kWrapped];
      if (target[method] !== wrapper) {
        stayed += 1;
        continue;
      }
      if (own === undefined) delete target[method];
      else Object.defineProperty(target, method, own);
    }
    this.records = [];
    return stayed;
  }
}

module.exports = { Patcher };
