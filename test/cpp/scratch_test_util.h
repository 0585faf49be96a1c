// Encodes updates the way lib/core/labels.js does (src/core/scratch_protocol.h),
// for the BuildFromScratch tests and the builder fuzzer.
#ifndef CUSTOMLABELS_TEST_CPP_SCRATCH_TEST_UTIL_H_
#define CUSTOMLABELS_TEST_CPP_SCRATCH_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/attribute_key_map.h"
#include "core/scratch_build.h"
#include "core/scratch_protocol.h"
#include "core/thread_context_record.h"

namespace customlabels::core::testing {

// A key and a value, or no value for "remove".
using Update = std::pair<std::string, std::optional<std::string>>;

// 8-byte aligned bytes.
class AlignedBytes final {
 public:
  explicit AlignedBytes(size_t size) : words_((size + 7) / 8 + 1), size_(size) {}
  ByteSpan span() { return {reinterpret_cast<unsigned char*>(words_.data()), size_}; }
  unsigned char* data() { return reinterpret_cast<unsigned char*>(words_.data()); }
  size_t size() const { return size_; }

 private:
  std::vector<uint64_t> words_;
  size_t size_;
};

inline AlignedBytes EncodeScratch(const std::vector<Update>& updates, size_t extra = 0) {
  size_t size = scratch::kHeaderBytes + updates.size() * scratch::kEntryBytes;
  for (const auto& [key, value] : updates) size += key.size() + (value ? value->size() : 0);
  AlignedBytes out(size + extra);
  unsigned char* entry = out.data() + scratch::kHeaderBytes;
  unsigned char* bytes = entry + updates.size() * scratch::kEntryBytes;
  for (const auto& [key, value] : updates) {
    const uint32_t lens[2] = {
        static_cast<uint32_t>(key.size()),
        value ? static_cast<uint32_t>(value->size()) : scratch::kValueRemoved};
    std::memcpy(entry, lens, sizeof(lens));
    entry += sizeof(lens);
    std::memcpy(bytes, key.data(), key.size());
    bytes += key.size();
    if (value) {
      std::memcpy(bytes, value->data(), value->size());
      bytes += value->size();
    }
  }
  return out;
}

// Asks for thread context records in an encoded scratch buffer, with the
// trace operation `op` (and `ids` with kTraceSet).
inline void AskForRecords(AlignedBytes& scratch_bytes, uint8_t op = scratch::kTraceInherit,
                          const TraceIds& ids = {}) {
  unsigned char* h = scratch_bytes.data();
  h[scratch::kRecordsOffset] = 1;
  h[scratch::kTraceOpOffset] = op;
  h[scratch::kTraceFlagsOffset] = ids.trace_flags;
  std::memcpy(h + scratch::kTraceIdOffset, ids.trace_id.data(), ids.trace_id.size());
  std::memcpy(h + scratch::kSpanIdOffset, ids.span_id.data(), ids.span_id.size());
}

// A key map of the test's own (the addon uses the process's).
class LocalKeys final : public AttributeKeys {
 public:
  int IndexOf(std::string_view key) override {
    bool appended = false;
    return map.FindOrAppend(key, &appended);
  }
  AttributeKeyMap map;
};

struct Results {
  uint64_t address = 0;
  uint32_t next = 0;
  uint32_t needed = 0;
  uint64_t record = 0;
};

// The set at an address the scratch results report.
inline const custom_labels_labelset_t* AsSet(uint64_t address) {
  return reinterpret_cast<const custom_labels_labelset_t*>(static_cast<uintptr_t>(address));
}

inline Results ReadResults(AlignedBytes& scratch_bytes) {
  Results r;
  std::memcpy(&r.address, scratch_bytes.data() + scratch::kAddressOffset, sizeof(r.address));
  std::memcpy(&r.next, scratch_bytes.data() + scratch::kNextOffsetOffset, sizeof(r.next));
  std::memcpy(&r.needed, scratch_bytes.data() + scratch::kNeededOffset, sizeof(r.needed));
  std::memcpy(&r.record, scratch_bytes.data() + scratch::kRecordAddressOffset, sizeof(r.record));
  return r;
}

}  // namespace customlabels::core::testing

#endif  // CUSTOMLABELS_TEST_CPP_SCRATCH_TEST_UTIL_H_
