// Builds immutable OTEP 4947 Thread-Local Context Records (otel_thread_ctx.h)
// from trace ids and attributes, cutting them as the OTEP recommends.
#ifndef CUSTOMLABELS_CORE_THREAD_CONTEXT_RECORD_H_
#define CUSTOMLABELS_CORE_THREAD_CONTEXT_RECORD_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "otel_thread_ctx.h"

namespace customlabels::core {

// The ids of the active span, as the W3C Trace Context has them.
struct TraceIds {
  std::array<uint8_t, 16> trace_id{};
  std::array<uint8_t, 8> span_id{};
  uint8_t trace_flags = 0;

  // All-zero trace id: no span is active.
  bool none() const;
  // The ids of `record` (its header must be readable).
  static TraceIds Of(const otel_thread_ctx_record_t* record);
};

// What Add() did with an attribute.
enum class AttributeResult {
  kAdded,
  kCut,      // added, its value cut to kMaxValueBytes on a UTF-8 boundary
  kNotUtf8,  // left out: readers drop values that are not UTF-8
  kNoRoom,   // left out: the record would pass kMaxRecordBytes
};

// Ownership as LabelSetBuilder: views passed to Add() must stay valid until
// WriteTo() returns; the written record depends on the caller's buffer alone.
class ThreadContextRecordBuilder final {
 public:
  ThreadContextRecordBuilder() = default;
  ThreadContextRecordBuilder(const ThreadContextRecordBuilder&) = delete;
  ThreadContextRecordBuilder& operator=(const ThreadContextRecordBuilder&) = delete;

  void Reset(const TraceIds& ids);
  // Appends the entry {key_index, value}. Entries are written in the order
  // added; one that does not fit is left out and later, smaller ones may
  // still fit.
  AttributeResult Add(uint8_t key_index, std::string_view value);

  // Whether an entry with a value of `value_bytes` bytes (before the cut)
  // still fits: asked before a key is given an index, so keys of attributes
  // that never make it into a record do not use up the key map.
  bool Fits(size_t value_bytes) const {
    const size_t kept = value_bytes < ThreadContextLimits::kMaxValueBytes
                            ? value_bytes
                            : ThreadContextLimits::kMaxValueBytes;
    return 2 + kept <= ThreadContextLimits::kMaxAttrsBytes - attrs_bytes_;
  }

  // Nothing to tell a reader: no trace and no attributes.
  bool empty() const { return ids_.none() && entries_.empty(); }
  size_t RequiredBytes() const { return ThreadContextLimits::kHeaderBytes + attrs_bytes_; }
  // Writes the record (valid = 1) at the start of `buffer` (2-byte aligned,
  // at least RequiredBytes() long); nullptr if the buffer does not qualify.
  otel_thread_ctx_record_t* WriteTo(void* buffer, size_t size) const;

 private:
  struct Entry {
    uint8_t key_index;
    std::string_view value;
  };
  TraceIds ids_;
  std::vector<Entry> entries_;
  size_t attrs_bytes_ = 0;
};

// Whether `s` is well-formed UTF-8 (no overlongs, surrogates or values past
// U+10FFFF), as readers that drop other values check.
bool IsUtf8(std::string_view s);
// The longest prefix of the UTF-8 string `s` that is at most `max` bytes and
// ends on a character boundary.
std::string_view CutUtf8(std::string_view s, size_t max);

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_THREAD_CONTEXT_RECORD_H_
