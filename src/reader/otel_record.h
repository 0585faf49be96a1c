// Decodes a thread's OpenTelemetry Thread-Local Context Record (OTEP 4947,
// what otel_thread_ctx_v1 points to) from any MemorySource, and resolves its
// attribute key indexes through the process context's key map. Pure and
// bounded: the record's own sizes are 16 bits, so at most 28 + 65535 bytes
// are read; everything read is untrusted.
//
// The record, packed, host endian:
//   0  trace_id uint8[16]   W3C byte order; all zero: no trace
//   16 span_id uint8[8]
//   24 valid uint8          only 1 is valid; anything else: record ignored
//   25 trace_flags uint8
//   26 attrs_data_size uint16
//   28 attrs_data           {uint8 key_index, uint8 length, length bytes}...
#ifndef CUSTOMLABELS_READER_OTEL_RECORD_H_
#define CUSTOMLABELS_READER_OTEL_RECORD_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memory_source.h"

namespace customlabels::reader {

struct OtelRecord {
  static constexpr size_t kHeaderBytes = 28;
  // The OTEP recommends records of at most 640 bytes.
  static constexpr size_t kRecommendedBytes = 640;
  static constexpr size_t kRecommendedAttrsBytes = kRecommendedBytes - kHeaderBytes;
  static constexpr size_t kMaxProblems = 16;

  struct Entry {
    uint8_t key_index = 0;
    std::string value;  // the published bytes (UTF-8 by the OTEP; not checked here)
  };

  uint64_t address = 0;  // the record pointer; 0: the thread has no context
  std::string error;     // non-empty: the record (or its pointer) could not be used
  std::array<uint8_t, 16> trace_id{};
  std::array<uint8_t, 8> span_id{};
  uint8_t valid = 0, trace_flags = 0;
  uint16_t attrs_size = 0;
  std::vector<Entry> entries;  // in published order, repeats included
  std::vector<std::string> problems;
  uint64_t more_problems = 0;

  bool ok() const { return error.empty(); }
  bool has_context() const { return address != 0; }
  // A non-zero trace id.
  bool has_trace() const;
  void Problem(std::string note);
};

// Reads the record at `address` (0: no context). A misaligned pointer
// (records are 2-byte aligned), an unreadable header or attrs_data, or a
// valid byte other than 1 are errors; an entry cut by attrs_data_size and
// attrs_data over the OTEP's recommendation are problems.
OtelRecord DecodeOtelRecord(const MemorySource& memory, uint64_t address);

// index N of the process context's threadlocal.attribute_key_map is key N;
// nullopt marks an element that is not a usable key (not a string).
using AttributeKeyMap = std::vector<std::optional<std::string>>;

struct OtelAttribute {
  uint8_t key_index = 0;
  std::string key, value;
};

// The record's attributes, keyed through `key_map` (nullptr: the process
// has no usable key map): in order of first occurrence, the last value of a
// repeated index wins, entries whose index is outside the map are dropped
// with a note in `problems` (one per index, at most kMaxProblems, then
// counted in `more_problems`), as are values that are not valid UTF-8 (kept,
// noted).
std::vector<OtelAttribute> ResolveOtelAttributes(const OtelRecord& record,
                                                 const AttributeKeyMap* key_map,
                                                 std::vector<std::string>* problems,
                                                 uint64_t* more_problems);

// Lowercase hex of `bytes`.
std::string HexBytes(const uint8_t* bytes, size_t size);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_OTEL_RECORD_H_
