#include "node_walk.h"

#include <cstring>

#include "core/node_walk.h"
#include "format.h"

namespace customlabels::reader {

namespace {

// V8 as Node.js builds it on 64-bit Linux, which the schema presumes (check
// compares the process context's layout numbers with these).
constexpr uint32_t kTaggedSize = 8;
constexpr uint32_t kJsMapTableOffset = 24;          // JSObject header: map, properties, elements
constexpr uint32_t kOrderedHashMapHeaderSize = 16;  // FixedArray header: map, length

class Words final : public core::WordSource {
 public:
  explicit Words(const MemorySource& memory) : memory_(memory) {}
  bool ReadWord(uint64_t address, uint64_t* out) const override {
    return memory_.ReadValue(address, out);
  }

 private:
  const MemorySource& memory_;
};

}  // namespace

NodeWalk WalkNode(const MemorySource& memory, uint64_t struct_address) {
  NodeWalk w;
  unsigned char raw[kNodeStructBytes];
  if (!memory.Read(struct_address, raw, sizeof(raw))) {
    w.status = "unreadable: " + std::string(kNodeSymbol) + " at " + Hex(struct_address);
    return w;
  }
  NodeDiscoveryWords& d = w.words;
  std::memcpy(&d.cped_slot, raw, 8);
  std::memcpy(&d.als_handle, raw + 8, 8);
  std::memcpy(&d.als_identity_hash, raw + 16, 4);
  d.record_slot_offset = raw[20];
  std::memcpy(d.reserved, raw + 21, 3);
  std::memcpy(&d.undefined_value, raw + 24, 8);
  // The record slot follows the label set slot (internal fields 1 and 0),
  // past at least the JSObject header.
  if (d.cped_slot != 0 &&
      (d.record_slot_offset % kTaggedSize != 0 || d.record_slot_offset < kJsMapTableOffset + 8)) {
    w.status = "malformed: record_slot_offset " + std::to_string(d.record_slot_offset);
    return w;
  }
  core::NodeDiscovery discovery;
  discovery.cped_slot = d.cped_slot;
  discovery.als_handle = d.als_handle;
  discovery.als_identity_hash = d.als_identity_hash;
  discovery.undefined_value = d.undefined_value;
  discovery.record_slot_offset = d.record_slot_offset;
  core::NodeLayout layout;
  layout.tagged_size = kTaggedSize;
  layout.js_map_table_offset = kJsMapTableOffset;
  layout.ordered_hash_map_header_size = kOrderedHashMapHeaderSize;
  layout.label_set_slot_offset = d.record_slot_offset - kTaggedSize;
  layout.record_slot_offset = d.record_slot_offset;
  const core::WalkResult r = core::WalkNodeContext(Words(memory), discovery, layout);
  w.status = core::WalkStatusName(r.status);
  if (*r.what != '\0') w.status += std::string(": ") + r.what;
  w.frame = r.frame;
  w.label_set = r.label_set;
  w.record = r.record;
  return w;
}

}  // namespace customlabels::reader
