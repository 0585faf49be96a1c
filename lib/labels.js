'use strict';

// Reads and validates a user's labels argument, then encodes it for the
// native builder. Reading (which may run user getters and Proxy traps) is
// finished before encoding starts, so re-entrant withLabels calls from a
// getter cannot disturb the shared scratch buffer.

const { types } = require('node:util');
const errors = require('./errors');

const REMOVE = 0xffffffff;

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
const HEADER = 16; // scratch[0..16): results written by native build()

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

// Writes Updates into a growable scratch ArrayBuffer in the layout the
// native build() reads: [16-byte results][u32 keyLen, u32 valueLen]*n[bytes].
const SCRATCH = 4096;
const SCRATCH_KEPT = 65536;

class Encoder {
  constructor(size = SCRATCH) {
    this.allocate(size);
  }

  // After an unusually large set: give the grown buffer back to the GC.
  shrink() {
    if (this.scratch.byteLength > SCRATCH_KEPT) this.allocate(SCRATCH);
  }

  allocate(size) {
    this.scratch = new ArrayBuffer(size);
    this.u8 = new Uint8Array(this.scratch);
    this.u32 = new Uint32Array(this.scratch);
    this.u64 = new BigUint64Array(this.scratch, 0, 1);
    this.buffer = Buffer.from(this.scratch);
  }

  encode(updates) {
    const n = updates.count;
    for (;;) {
      const written = this.tryEncode(updates.keys, updates.values, n);
      if (written >= 0) return n;
      this.allocate(this.scratch.byteLength * 2);
    }
  }

  // One pass; -1 if the scratch buffer may be too small (then it grows).
  tryEncode(keys, values, n) {
    const { u32, u8 } = this;
    const limit = this.scratch.byteLength;
    let offset = HEADER + n * 8;
    if (offset > limit) return -1;
    for (let i = 0; i < n; i++) {
      const key = keys[i];
      if (offset + key.length * 3 > limit) return -1;
      const keyLen = this.writeString(key, offset);
      offset += keyLen;
      const value = values[i];
      let valueLen;
      if (value === null) {
        valueLen = REMOVE;
      } else if (typeof value === 'string') {
        if (offset + value.length * 3 > limit) return -1;
        valueLen = this.writeString(value, offset);
        offset += valueLen;
      } else {
        valueLen = byteLengthOf(value);
        // Checked again here: a getter read after this value may have
        // detached its buffer.
        if (valueLen === 0 && isDetached(value)) throw errors.invalidValue(key, value);
        if (offset + valueLen > limit) return -1;
        if (valueLen !== 0) u8.set(value, offset);
        offset += valueLen;
      }
      u32[4 + 2 * i] = keyLen;
      u32[5 + 2 * i] = valueLen;
    }
    return offset;
  }

  // UTF-8 of `s` at `offset` (room for 3 bytes per code unit is checked).
  writeString(s, offset) {
    const n = s.length;
    if (n <= 64) {
      const { u8 } = this;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) return this.buffer.write(s, offset);
        u8[offset + i] = c;
      }
      return n;
    }
    return this.buffer.write(s, offset);
  }

  // Results of native build(): the set's address as a BigInt (0n: no
  // labels left), the next free slab offset (0xffffffff: did not fit) and
  // the bytes the set needs.
  address() {
    return this.u64[0];
  }

  nextOffset() {
    return this.u32[2];
  }

  needed() {
    return this.u32[3];
  }
}

module.exports = { readLabels, isLabelsObject, Encoder, Updates, DID_NOT_FIT: REMOVE };
