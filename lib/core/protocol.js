'use strict';

// The scratch protocol between lib/ and the native build() call, defined
// here once for JS and mirrored in src/core/scratch_protocol.h (a Jest test,
// test/js/protocol.test.js, checks that both say the same).
//
// build(parentSlab, parentOffset, scratch, n, slab, slabOffset) reads n
// updates from `scratch` and writes the merged set into `slab`:
//
//   scratch[0..8)    out: the new set's address, a uint64 (0: no labels left)
//   scratch[8..12)   out: the slab offset after the set (8-aligned), or
//                    DID_NOT_FIT if the set does not fit in the slab
//   scratch[12..16)  out: the bytes the set needs (NEEDED_SATURATED: 4 GiB
//                    or more)
//   scratch[16..24)  out: the address of the set's thread context record, a
//                    uint64 (0: none)
//   scratch[24]      in: the trace ids of the new set: TRACE_INHERIT (the
//                    parent's), TRACE_SET (the ids below), TRACE_CLEAR (none)
//   scratch[25]      in: W3C trace flags (with TRACE_SET)
//   scratch[26]      in: 1 to build thread context records, 0 not to
//   scratch[27..32)  reserved
//   scratch[32..48)  in: trace id (with TRACE_SET)
//   scratch[48..56)  in: span id (with TRACE_SET)
//   scratch[56..56+8n)  in: per update, uint32 key length, uint32 value
//                    length (VALUE_REMOVED: remove the key; no value bytes)
//   then          in: key bytes, value bytes, update after update
//
// A set written into a slab carries its own address at SET_SELF_OFFSET and
// its record's (0: none) at SET_RECORD_OFFSET, where lib/core/label-set.js and
// the V8 unit read them instead of passing them around.
//
// Integers are in the machine's byte order (both sides run in one process).

// The version of everything lib/ and the addon agree on: this layout, the
// binding's functions and the instance copies of the package share on it
// (lib/core/instance.js; 4: the instance, not the API object, and no
// internals on the API; 5: its mirrors; 6: its scopes; 7:
// observers in place of mirrors; see lib/core/binding.js). Bumped on
// any incompatible change; copies of the package with different versions
// never share an addon.
const PROTOCOL_VERSION = 7;

const ADDRESS_OFFSET = 0;
const NEXT_OFFSET_OFFSET = 8;
const NEEDED_OFFSET = 12;
const RECORD_ADDRESS_OFFSET = 16;
const TRACE_OP_OFFSET = 24;
const TRACE_FLAGS_OFFSET = 25;
const RECORDS_OFFSET = 26;
const TRACE_ID_OFFSET = 32;
const SPAN_ID_OFFSET = 48;
const HEADER_BYTES = 56;
const ENTRY_BYTES = 8;

const SET_SELF_OFFSET = 24;
const SET_RECORD_OFFSET = 40;

const TRACE_INHERIT = 0;
const TRACE_SET = 1;
const TRACE_CLEAR = 2;

// Value length of an update that removes its key.
const VALUE_REMOVED = 0xffffffff;
// Next slab offset when the set does not fit (nothing was written).
const DID_NOT_FIT = 0xffffffff;
// Bytes needed when a set needs 4 GiB or more.
const NEEDED_SATURATED = 0xffffffff;

module.exports = Object.freeze({
  PROTOCOL_VERSION,
  HEADER_BYTES,
  ADDRESS_OFFSET,
  NEXT_OFFSET_OFFSET,
  NEEDED_OFFSET,
  RECORD_ADDRESS_OFFSET,
  TRACE_OP_OFFSET,
  TRACE_FLAGS_OFFSET,
  RECORDS_OFFSET,
  TRACE_ID_OFFSET,
  SPAN_ID_OFFSET,
  ENTRY_BYTES,
  SET_SELF_OFFSET,
  SET_RECORD_OFFSET,
  TRACE_INHERIT,
  TRACE_SET,
  TRACE_CLEAR,
  VALUE_REMOVED,
  DID_NOT_FIT,
  NEEDED_SATURATED,
});
