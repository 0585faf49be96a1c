'use strict';

// Encodes Updates into the scratch buffer native build() reads; the layout
// is lib/protocol.js.

const errors = require('./errors');
const { isDetached, byteLengthOf } = require('./labels');
const {
  HEADER_BYTES,
  ENTRY_BYTES,
  ADDRESS_OFFSET,
  NEXT_OFFSET_OFFSET,
  NEEDED_OFFSET,
  VALUE_REMOVED,
} = require('./protocol');

const ENTRIES_U32 = HEADER_BYTES / 4;
const NEXT_OFFSET_U32 = NEXT_OFFSET_OFFSET / 4;
const NEEDED_U32 = NEEDED_OFFSET / 4;

// The scratch buffer grows to fit a large set and is given back after it.
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
    this.u64 = new BigUint64Array(this.scratch, ADDRESS_OFFSET, 1);
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
    let offset = HEADER_BYTES + n * ENTRY_BYTES;
    if (offset > limit) return -1;
    for (let i = 0; i < n; i++) {
      const key = keys[i];
      if (offset + key.length * 3 > limit) return -1;
      const keyLen = this.writeString(key, offset);
      offset += keyLen;
      const value = values[i];
      let valueLen;
      if (value === null) {
        valueLen = VALUE_REMOVED;
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
      u32[ENTRIES_U32 + 2 * i] = keyLen;
      u32[ENTRIES_U32 + 2 * i + 1] = valueLen;
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
  // labels left), the next free slab offset (DID_NOT_FIT) and the bytes the
  // set needs (NEEDED_SATURATED: 4 GiB or more).
  address() {
    return this.u64[0];
  }

  nextOffset() {
    return this.u32[NEXT_OFFSET_U32];
  }

  needed() {
    return this.u32[NEEDED_U32];
  }
}

module.exports = { Encoder };
