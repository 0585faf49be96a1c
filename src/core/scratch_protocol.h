// The scratch protocol between lib/ and the native build() call. Defined in
// lib/core/protocol.js and mirrored here; test/js/protocol.test.js checks that the
// two agree, and the static_asserts below that the layout is consistent.
//
//   scratch[0..8)    out: the new set's address, a uint64 (0: no labels left)
//   scratch[8..12)   out: the slab offset after the set (8-aligned), or
//                    kDidNotFit if the set does not fit in the slab
//   scratch[12..16)  out: the bytes the set needs (kNeededSaturated: 4 GiB or
//                    more)
//   scratch[16..24)  out: the address of the set's thread context record, a
//                    uint64 (0: none)
//   scratch[24]      in: the trace ids of the new set: kTraceInherit (the
//                    parent's), kTraceSet (the ids below), kTraceClear (none)
//   scratch[25]      in: W3C trace flags (with kTraceSet)
//   scratch[26]      in: 1 to build thread context records, 0 not to
//   scratch[27..32)  reserved
//   scratch[32..48)  in: trace id (with kTraceSet)
//   scratch[48..56)  in: span id (with kTraceSet)
//   scratch[56..56+8n)  in: per update, uint32 key length, uint32 value length
//                    (kValueRemoved: remove the key; no value bytes follow)
//   then          in: key bytes, value bytes, update after update
//
// A set written into a slab carries its own address at kSetSelfOffset and
// its record's (0: none) at kSetRecordOffset (LabelSetLayout), where lib/ and
// the V8 unit read them instead of passing them around.
#ifndef CUSTOMLABELS_CORE_SCRATCH_PROTOCOL_H_
#define CUSTOMLABELS_CORE_SCRATCH_PROTOCOL_H_

#include <cstddef>
#include <cstdint>

namespace customlabels::core::scratch {

// The version of everything lib/ and the addon agree on: this layout, the
// binding's functions and the instance copies of the package share on it
// (lib/core/instance.js; 4: the instance, not the API object, and no
// internals on the API; 5: its mirrors; 6: its scopes; 7: observers in
// place of mirrors; see lib/core/binding.js). Bumped on any incompatible change; copies of the
// package with different versions never share an addon.
constexpr uint32_t kProtocolVersion = 7;

constexpr size_t kAddressOffset = 0;
constexpr size_t kNextOffsetOffset = 8;
constexpr size_t kNeededOffset = 12;
constexpr size_t kRecordAddressOffset = 16;
constexpr size_t kTraceOpOffset = 24;
constexpr size_t kTraceFlagsOffset = 25;
constexpr size_t kRecordsOffset = 26;
constexpr size_t kTraceIdOffset = 32;
constexpr size_t kSpanIdOffset = 48;
constexpr size_t kHeaderBytes = 56;
constexpr size_t kEntryBytes = 8;

constexpr uint8_t kTraceInherit = 0;
constexpr uint8_t kTraceSet = 1;
constexpr uint8_t kTraceClear = 2;

constexpr size_t kSetSelfOffset = 24;
constexpr size_t kSetRecordOffset = 40;

// Value length of an update that removes its key.
constexpr uint32_t kValueRemoved = 0xffffffffu;
// Next slab offset when the set does not fit (nothing was written).
constexpr uint32_t kDidNotFit = 0xffffffffu;
// Bytes needed when a set needs 4 GiB or more.
constexpr uint32_t kNeededSaturated = 0xffffffffu;

static_assert(kAddressOffset + sizeof(uint64_t) == kNextOffsetOffset);
static_assert(kNextOffsetOffset + sizeof(uint32_t) == kNeededOffset);
static_assert(kNeededOffset + sizeof(uint32_t) == kRecordAddressOffset);
static_assert(kRecordAddressOffset + sizeof(uint64_t) == kTraceOpOffset);
static_assert(kRecordAddressOffset % alignof(uint64_t) == 0);
static_assert(kTraceIdOffset + 16 == kSpanIdOffset && kSpanIdOffset + 8 == kHeaderBytes);
static_assert(kHeaderBytes % alignof(uint32_t) == 0);
static_assert(kEntryBytes == 2 * sizeof(uint32_t));
static_assert(kAddressOffset % alignof(uint64_t) == 0);

}  // namespace customlabels::core::scratch

#endif  // CUSTOMLABELS_CORE_SCRATCH_PROTOCOL_H_
