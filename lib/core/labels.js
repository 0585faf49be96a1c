'use strict';

// Reads and validates a user's labels argument into Updates (keys and
// values, nothing encoded yet). Reading may run user getters and Proxy
// traps, so it is finished before lib/core/encoder.js writes the shared scratch
// buffer, and LabelReader keeps a re-entrant withLabels call (from a getter)
// off the shared Updates.

const { types } = require('node:util');
const errors = require('./errors');

// Intrinsic getters: a value's own or inherited `byteLength` can be
// redefined by user code, so lengths are read through these (which run no
// user code and cannot be lied to).
const TypedArray = Object.getPrototypeOf(Uint8Array);
const byteLengthOf = Function.prototype.call.bind(
  Object.getOwnPropertyDescriptor(TypedArray.prototype, 'byteLength').get,
);
const bufferOf = Function.prototype.call.bind(Object.getOwnPropertyDescriptor(TypedArray.prototype, 'buffer').get);

// A detached buffer has no bytes to publish (its byteLength reads 0).
function isDetached(u8) {
  if (byteLengthOf(u8) !== 0) return false;
  try {
    new Uint8Array(bufferOf(u8)); // eslint-disable-line no-new
    return false;
  } catch {
    return true;
  }
}

// What one withLabels call asks for: parallel arrays of keys and values
// (string, Uint8Array, or null for "remove") with a count, and whether the
// request only holds primitives (so a frozen labels object may be cached by
// identity). The arrays are reused from call to call.
class Updates {
  constructor() {
    this.keys = [];
    this.values = [];
    this.count = 0;
    this.primitive = true;
  }

  reset() {
    this.count = 0;
    this.primitive = true;
    return this;
  }

  add(key, value) {
    if (typeof key !== 'string' || key.length === 0) throw errors.invalidKey(key);
    let v;
    switch (typeof value) {
      case 'string':
        v = value;
        break;
      case 'number':
      case 'boolean':
      case 'bigint':
        v = String(value);
        break;
      case 'undefined':
        v = null;
        break;
      case 'object':
        if (value === null) {
          v = null;
        } else if (types.isUint8Array(value)) {
          if (isDetached(value)) throw errors.invalidValue(key, value);
          v = value;
          this.primitive = false;
        } else {
          throw errors.invalidValue(key, value);
        }
        break;
      default:
        throw errors.invalidValue(key, value);
    }
    this.keys[this.count] = key;
    this.values[this.count] = v;
    this.count += 1;
  }

  // Drops references to user values once encoded.
  clear() {
    for (let i = 0; i < this.count; i++) this.values[i] = null;
    this.count = 0;
  }
}

function isLabelsObject(labels) {
  return typeof labels === 'object' && labels !== null && !Array.isArray(labels);
}

const hasOwn = Object.prototype.hasOwnProperty;

// Snapshots `labels` (plain object or Map) into `updates`, validating every
// key and value. Own enumerable string-keyed properties count (symbol keys
// are ignored, as Object.keys does). Throws TypeError with a stable code;
// user errors (getters, Proxy traps) pass through.
function readLabels(labels, updates = new Updates()) {
  if (!isLabelsObject(labels)) throw errors.invalidLabels(labels);
  updates.reset();
  const proto = Object.getPrototypeOf(labels);
  if (proto === Object.prototype || proto === null) {
    // Fast path: a plain object of this realm (for-in uses V8's enum cache).
    for (const key in labels) {
      if (hasOwn.call(labels, key)) updates.add(key, labels[key]);
    }
    return updates;
  }
  if (types.isMap(labels)) {
    Map.prototype.forEach.call(labels, (value, key) => updates.add(key, value));
    return updates;
  }
  // Objects whose meaning is not their own properties (a Date, a boxed
  // string's indexes, a typed array's elements, a Set's entries) are not
  // label objects; class instances and objects of other realms are.
  if (
    types.isWeakMap(labels) ||
    types.isSet(labels) ||
    types.isWeakSet(labels) ||
    types.isPromise(labels) ||
    types.isDate(labels) ||
    types.isRegExp(labels) ||
    types.isBoxedPrimitive(labels) ||
    types.isAnyArrayBuffer(labels) ||
    ArrayBuffer.isView(labels) ||
    types.isNativeError(labels)
  ) {
    throw errors.invalidLabels(labels);
  }
  const keys = Object.keys(labels);
  for (let i = 0; i < keys.length; i++) updates.add(keys[i], labels[keys[i]]);
  return updates;
}

// Reads labels into one reused Updates; a withLabels call made by a getter
// while it is in use reads into a fresh one.
class LabelReader {
  constructor() {
    this.shared = new Updates();
    this.reading = false;
  }

  read(labels) {
    if (this.reading) return readLabels(labels, new Updates());
    this.reading = true;
    try {
      return readLabels(labels, this.shared);
    } finally {
      this.reading = false;
    }
  }
}

module.exports = { readLabels, isDetached, byteLengthOf, Updates, LabelReader };
