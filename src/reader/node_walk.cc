#include "node_walk.h"

#include <cstring>

#include "format.h"

namespace customlabels::reader {

namespace {

// V8 as Node.js builds it on 64-bit Linux (the schema presumes it): 8-byte
// tagged words, heap pointers with bit 0 set, Smis in the upper 32 bits.
constexpr uint64_t kTaggedSize = 8;
constexpr uint64_t kJsMapTableOffset = 24;         // JSObject header: map, properties, elements
constexpr uint64_t kOrderedHashMapHeaderSize = 16;  // FixedArray header: map, length
constexpr int64_t kEntrySize = 3;                   // key, value, chain
constexpr int64_t kLoadFactor = 2;
constexpr int64_t kMaxBuckets = int64_t{1} << 16;  // a frame holds a handful of stores

bool IsSmi(uint64_t w) { return (w & 0xffffffffULL) == 0; }
int64_t Smi(uint64_t w) { return static_cast<int64_t>(w) >> 32; }
bool IsHeapObject(uint64_t w) { return (w & 1) != 0; }

}  // namespace

NodeWalk WalkNode(const MemorySource& memory, uint64_t struct_address) {
  NodeWalk w;
  auto fail = [&w](const std::string& status) {
    w.status = status;
    return w;
  };
  unsigned char raw[kNodeStructBytes];
  if (!memory.Read(struct_address, raw, sizeof(raw))) {
    return fail("unreadable: " + std::string(kNodeSymbol) + " at " + Hex(struct_address));
  }
  NodeDiscoveryWords& d = w.words;
  std::memcpy(&d.cped_slot, raw, 8);
  std::memcpy(&d.als_handle, raw + 8, 8);
  std::memcpy(&d.als_identity_hash, raw + 16, 4);
  d.record_slot_offset = raw[20];
  std::memcpy(d.reserved, raw + 21, 3);
  std::memcpy(&d.undefined_value, raw + 24, 8);
  if (d.cped_slot == 0) return fail("gate-closed");
  // The record slot follows the label set slot (internal fields 1 and 0),
  // past at least the JSObject header.
  if (d.record_slot_offset % kTaggedSize != 0 || d.record_slot_offset < kJsMapTableOffset + 8) {
    return fail("malformed: record_slot_offset " + std::to_string(d.record_slot_offset));
  }
  if (!memory.ReadValue(d.cped_slot, &w.frame)) {
    return fail("unreadable: the continuation data slot at " + Hex(d.cped_slot));
  }
  if (w.frame == d.undefined_value) return fail("no-frame");
  if (!IsHeapObject(w.frame)) return fail("malformed: the continuation data is not an object");
  uint64_t table = 0;
  if (!memory.ReadValue(w.frame - 1 + kJsMapTableOffset, &table)) {
    return fail("unreadable: the frame's table");
  }
  if (!IsHeapObject(table)) return fail("malformed: the frame's table is not an object");
  const uint64_t base = table - 1;
  uint64_t header[5];  // map, length, elements, deleted, buckets
  if (!memory.Read(base, header, sizeof(header))) return fail("unreadable: the table at " + Hex(base));
  if (!IsSmi(header[1]) || !IsSmi(header[2]) || !IsSmi(header[3]) || !IsSmi(header[4])) {
    // Mid-rehash the element count is a forwarding pointer.
    return fail("malformed: table counts are not small integers");
  }
  const int64_t length = Smi(header[1]), elements = Smi(header[2]), deleted = Smi(header[3]),
                buckets = Smi(header[4]);
  if (buckets <= 0 || buckets > kMaxBuckets || (buckets & (buckets - 1)) != 0) {
    return fail("malformed: bucket count " + std::to_string(buckets));
  }
  const int64_t capacity = buckets * kLoadFactor;
  if (elements < 0 || deleted < 0 || elements + deleted > capacity ||
      length < 3 + buckets + kEntrySize * capacity) {
    return fail("malformed: table counts out of range");
  }
  const int64_t used = elements + deleted;
  const uint64_t words = base + kOrderedHashMapHeaderSize;
  auto word = [&memory, words](int64_t i, uint64_t* out) {
    return memory.ReadValue(words + kTaggedSize * static_cast<uint64_t>(i), out);
  };
  uint64_t als = 0;
  if (!memory.ReadValue(d.als_handle, &als)) return fail("unreadable: the storage's handle");
  uint64_t head = 0;
  if (!word(3 + (static_cast<int64_t>(d.als_identity_hash) & (buckets - 1)), &head)) {
    return fail("unreadable: a bucket");
  }
  int64_t entry = IsSmi(head) ? Smi(head) : -1;
  for (int64_t steps = used; steps > 0 && entry >= 0 && entry < used; --steps) {
    const int64_t at = 3 + buckets + entry * kEntrySize;
    uint64_t e[3];
    if (!memory.Read(words + kTaggedSize * static_cast<uint64_t>(at), e, sizeof(e))) {
      return fail("unreadable: an entry");
    }
    if (e[0] == als) {
      if (e[1] == d.undefined_value) return fail("detached");
      if (!IsHeapObject(e[1])) return fail("malformed: the store is not an object");
      const uint64_t wrapper = e[1] - 1;
      if (!memory.ReadValue(wrapper + d.record_slot_offset - kTaggedSize, &w.label_set) ||
          !memory.ReadValue(wrapper + d.record_slot_offset, &w.record)) {
        return fail("unreadable: the store's fields");
      }
      w.status = "found";
      return w;
    }
    entry = IsSmi(e[2]) ? Smi(e[2]) : -1;
  }
  return fail("not-in-frame");
}

}  // namespace customlabels::reader
