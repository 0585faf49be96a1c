'use strict';

// Reads and validates a user's labels argument, then encodes it for the
// native builder. Reading (which may run user getters and Proxy traps) is
// finished before encoding starts, so re-entrant withLabels calls from a
// getter cannot disturb the shared scratch buffer.

const { types } = require('node:util');
const errors = require('./errors');

const REMOVE = 0xffffffff;
const HEADER = 8; // scratch[0..8): address of the built set, written by native code

// What one withLabels call asks for: parallel arrays of keys and values
// (string, Uint8Array, or null for "remove"), and whether the request only
// holds primitives (so a frozen labels object may be cached by identity).
class Updates {
  constructor() {
    this.keys = [];
    this.values = [];
    this.primitive = true;
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
          v = value;
          this.primitive = false;
        } else {
          throw errors.invalidValue(key, value);
        }
        break;
      default:
        throw errors.invalidValue(key, value);
    }
    this.keys.push(key);
    this.values.push(v);
  }
}

function isLabelsObject(labels) {
  return typeof labels === 'object' && labels !== null && !Array.isArray(labels);
}

// Snapshots `labels` (plain object or Map) into an Updates, validating every
// key and value. Throws TypeError with a stable code; user errors pass through.
function readLabels(labels) {
  if (!isLabelsObject(labels)) throw errors.invalidLabels(labels);
  const updates = new Updates();
  if (types.isMap(labels)) {
    Map.prototype.forEach.call(labels, (value, key) => updates.add(key, value));
    return updates;
  }
  if (types.isWeakMap(labels) || types.isSet(labels) || types.isPromise(labels)) {
    throw errors.invalidLabels(labels);
  }
  const keys = Object.keys(labels);
  for (let i = 0; i < keys.length; i++) updates.add(keys[i], labels[keys[i]]);
  const symbols = Object.getOwnPropertySymbols(labels);
  for (let i = 0; i < symbols.length; i++) {
    if (Object.prototype.propertyIsEnumerable.call(labels, symbols[i])) {
      throw errors.invalidKey(symbols[i]);
    }
  }
  return updates;
}

// Writes Updates into a growable scratch ArrayBuffer in the layout the
// native build() reads: [8-byte result][u32 keyLen, u32 valueLen]*n[bytes].
class Encoder {
  constructor(size = 4096) {
    this.allocate(size);
  }

  allocate(size) {
    this.scratch = new ArrayBuffer(size);
    this.u8 = new Uint8Array(this.scratch);
    this.u32 = new Uint32Array(this.scratch);
    this.f64 = new Float64Array(this.scratch, 0, 1);
    this.buffer = Buffer.from(this.scratch);
  }

  // Worst case: 3 UTF-8 bytes per UTF-16 code unit.
  static bound(value) {
    return typeof value === 'string' ? value.length * 3 : value === null ? 0 : value.byteLength;
  }

  encode(updates) {
    const { keys, values } = updates;
    const n = keys.length;
    let need = HEADER + n * 8;
    for (let i = 0; i < n; i++) need += Encoder.bound(keys[i]) + Encoder.bound(values[i]);
    if (need > this.scratch.byteLength) {
      let size = this.scratch.byteLength;
      while (size < need) size *= 2;
      this.allocate(size);
    }
    const { u32 } = this;
    let offset = HEADER + n * 8;
    for (let i = 0; i < n; i++) {
      const keyLen = this.writeString(keys[i], offset);
      offset += keyLen;
      const value = values[i];
      let valueLen;
      if (value === null) {
        valueLen = REMOVE;
      } else if (typeof value === 'string') {
        valueLen = this.writeString(value, offset);
        offset += valueLen;
      } else {
        this.u8.set(value, offset);
        valueLen = value.byteLength;
        offset += valueLen;
      }
      u32[2 + 2 * i] = keyLen;
      u32[3 + 2 * i] = valueLen;
    }
    return n;
  }

  writeString(s, offset) {
    const n = s.length;
    if (n <= 64) {
      const { u8 } = this;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        u8[offset + i] = c;
      }
      if (i === n) return n;
    }
    return this.buffer.write(s, offset);
  }

  // The set address native build() left in scratch[0..8), as double bits.
  result() {
    return this.f64[0];
  }
}

module.exports = { readLabels, isLabelsObject, Encoder, Updates };
