'use strict';

// Encodes Updates into the scratch buffer native build() reads; the layout
// is lib/core/protocol.js.

const errors = require('./errors');
const { isDetached, byteLengthOf } = require('./labels');
const {
  HEADER_BYTES,
  ENTRY_BYTES,
  ADDRESS_OFFSET,
  NEXT_OFFSET_OFFSET,
  NEEDED_OFFSET,
  RECORD_ADDRESS_OFFSET,
  TRACE_OP_OFFSET,
  TRACE_FLAGS_OFFSET,
  RECORDS_OFFSET,
  TRACE_ID_OFFSET,
  SPAN_ID_OFFSET,
  VALUE_REMOVED,
  TRACE_INHERIT,
  TRACE_SET,
} = require('./protocol');

const ENTRIES_U32 = HEADER_BYTES / 4;
const NEXT_OFFSET_U32 = NEXT_OFFSET_OFFSET / 4;
const ADDRESS_U32 = ADDRESS_OFFSET / 4;
const NEEDED_U32 = NEEDED_OFFSET / 4;

// The scratch buffer grows to fit a large set and is given back after it.
const SCRATCH = 4096;
const SCRATCH_KEPT = 65536;

// `records`: whether native build() also writes thread context records.
class Encoder {
  constructor(size = SCRATCH, records = false) {
    this.records = records;
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
    this.record = new BigUint64Array(this.scratch, RECORD_ADDRESS_OFFSET, 1);
    this.buffer = Buffer.from(this.scratch);
    this.u8[RECORDS_OFFSET] = this.records ? 1 : 0;
  }

  // `trace`: null (the parent's trace ids) or a TraceContext
  // (lib/core/trace-context.js) whose ids the new set carries (TRACE_CLEAR: none),
  // written from their hex digits.
  encode(updates, trace = null) {
    const n = updates.count;
    while (this.tryEncode(updates.keys, updates.values, n) < 0) {
      this.allocate(this.scratch.byteLength * 2);
    }
    const { u8 } = this;
    if (trace === null) {
      u8[TRACE_OP_OFFSET] = TRACE_INHERIT;
    } else {
      u8[TRACE_OP_OFFSET] = trace.op;
      if (trace.op === TRACE_SET) {
        this.buffer.write(trace.traceId, TRACE_ID_OFFSET, 16, 'hex');
        this.buffer.write(trace.spanId, SPAN_ID_OFFSET, 8, 'hex');
        u8[TRACE_FLAGS_OFFSET] = trace.flags;
      }
    }
    return n;
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

  // Results of native build(): whether it wrote a set (false: no labels and
  // no record left), the set's address as a BigInt, the next free slab
  // offset (DID_NOT_FIT) and the bytes the set needs (NEEDED_SATURATED: 4 GiB
  // or more).
  wroteSet() {
    return (this.u32[ADDRESS_U32] | this.u32[ADDRESS_U32 + 1]) !== 0;
  }

  address() {
    return this.u64[0];
  }

  // The set's thread context record (0n: none).
  recordAddress() {
    return this.record[0];
  }

  nextOffset() {
    return this.u32[NEXT_OFFSET_U32];
  }

  needed() {
    return this.u32[NEEDED_U32];
  }
}

module.exports = { Encoder };
