'use strict';

// The one bounded cache of the integrations: what is made once per key (a
// route's frozen labels, a queue's, an operation's outline) and found again
// by identity, which is what makes withLabels find its set without reading
// and encoding labels per request. Keys often come from clients (header
// values, operation names, job names), so each cache holds at most `max`
// entries: past that the oldest entry goes (first in, first out), so a burst
// of new keys never stops the cache from serving the keys in use after it,
// and never grows memory. What a cache holds is always right: an evicted
// key is made again.
//
//   const labels = new BoundedCache(256);
//   labels.get(template, (t) => Object.freeze({ route: t }));
//
// memoOn(owner, key, k, make): the same, kept on an object the app made (a
// route, a layer) under the caller's symbol.

const DEFAULT_MAX = 256;

class BoundedCache {
  constructor(max = DEFAULT_MAX) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a cache of ${max} entries`);
    this.max = max;
    this.entries = new Map();
  }

  // The value of `key`, made by make(key) the first time (and after it was
  // evicted).
  get(key, make) {
    let value = this.entries.get(key);
    if (value === undefined) {
      value = make(key);
      this.set(key, value);
    }
    return value;
  }

  // The value of `key`, or undefined.
  peek(key) {
    return this.entries.get(key);
  }

  set(key, value) {
    if (!this.entries.has(key) && this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value);
    this.entries.set(key, value);
  }

  get size() {
    return this.entries.size;
  }
}

// The same for values keyed by several parts (a request's method, route
// and header values), without joining them into one string per lookup
// (which would make a new string to hash each time; the parts are strings
// already hashed, or undefined): a Map per part. It holds at most `max`
// values and starts over when full (a burst of new keys costs the keys in
// use one make() each after it, never memory).
//
//   const labels = new BoundedTrie(1024);
//   parts[0] = method; parts[1] = template;
//   labels.get(parts, 2, () => Object.freeze({ method, route: template }));
class BoundedTrie {
  constructor(max = DEFAULT_MAX) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a cache of ${max} entries`);
    this.max = max;
    this.root = new Map();
    this.size = 0;
  }

  // The value of parts[0..n) (n >= 1), made by make() the first time (and
  // after the trie started over). (make() may read `parts` itself: nothing
  // between filling them and make() may call get() on the same parts.)
  get(parts, n, make) {
    let level = this.root;
    for (let i = 0; i < n - 1; i++) {
      let next = level.get(parts[i]);
      if (next === undefined) {
        next = new Map();
        level.set(parts[i], next);
      }
      level = next;
    }
    const last = parts[n - 1];
    let value = level.get(last);
    if (value === undefined) {
      value = make();
      if (this.size >= this.max) {
        this.root = new Map();
        this.size = 0;
        return value;
      }
      level.set(last, value);
      this.size += 1;
    }
    return value;
  }
}

// A bounded cache kept on `owner` under `symbol`: make(k) once per k.
function memoOn(owner, symbol, k, make, max = DEFAULT_MAX) {
  let cache = owner[symbol];
  if (cache === undefined) {
    cache = new BoundedCache(max);
    if (Object.isExtensible(owner)) Object.defineProperty(owner, symbol, { value: cache });
  }
  return cache.get(k, make);
}

module.exports = { BoundedCache, BoundedTrie, memoOn };
