#include "thread_context_record.h"

#include <algorithm>
#include <cstring>

namespace customlabels::core {

bool TraceIds::none() const {
  return std::all_of(trace_id.begin(), trace_id.end(), [](uint8_t b) { return b == 0; });
}

TraceIds TraceIds::Of(const otel_thread_ctx_record_t* record) {
  TraceIds ids;
  std::memcpy(ids.trace_id.data(), record->trace_id, ids.trace_id.size());
  std::memcpy(ids.span_id.data(), record->span_id, ids.span_id.size());
  ids.trace_flags = record->trace_flags;
  return ids;
}

void ThreadContextRecordBuilder::Reset(const TraceIds& ids) {
  ids_ = ids;
  entries_.clear();
  attrs_bytes_ = 0;
}

AttributeResult ThreadContextRecordBuilder::Add(uint8_t key_index, std::string_view value) {
  if (!IsUtf8(value)) return AttributeResult::kNotUtf8;
  const std::string_view kept = CutUtf8(value, ThreadContextLimits::kMaxValueBytes);
  const size_t bytes = 2 + kept.size();
  if (bytes > ThreadContextLimits::kMaxAttrsBytes - attrs_bytes_) return AttributeResult::kNoRoom;
  entries_.push_back({key_index, kept});
  attrs_bytes_ += bytes;
  return kept.size() == value.size() ? AttributeResult::kAdded : AttributeResult::kCut;
}

otel_thread_ctx_record_t* ThreadContextRecordBuilder::WriteTo(void* buffer, size_t size) const {
  if (buffer == nullptr ||
      reinterpret_cast<uintptr_t>(buffer) % ThreadContextLimits::kAlignment != 0 ||
      size < RequiredBytes()) {
    return nullptr;
  }
  auto* record = static_cast<otel_thread_ctx_record_t*>(buffer);
  std::memcpy(record->trace_id, ids_.trace_id.data(), ids_.trace_id.size());
  std::memcpy(record->span_id, ids_.span_id.data(), ids_.span_id.size());
  // "Zero if trace-id/span-id are unset."
  record->trace_flags = ids_.none() ? 0 : ids_.trace_flags;
  record->attrs_data_size = static_cast<uint16_t>(attrs_bytes_);
  unsigned char* out = static_cast<unsigned char*>(buffer) + ThreadContextLimits::kHeaderBytes;
  for (const Entry& e : entries_) {
    *out++ = e.key_index;
    *out++ = static_cast<unsigned char>(e.value.size());
    if (!e.value.empty()) std::memcpy(out, e.value.data(), e.value.size());
    out += e.value.size();
  }
  // The record is published by a pointer store, never in place: `valid` is
  // simply part of what is written before it.
  record->valid = 1;
  return record;
}

bool IsUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t min, cp;
    if ((c & 0xe0) == 0xc0) {
      len = 2, min = 0x80, cp = c & 0x1fu;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3, min = 0x800, cp = c & 0x0fu;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4, min = 0x10000, cp = c & 0x07u;
    } else {
      return false;
    }
    if (n - i < len) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += len;
  }
  return true;
}

std::string_view CutUtf8(std::string_view s, size_t max) {
  if (s.size() <= max) return s;
  size_t end = max;
  // Back up over continuation bytes to the start of the cut character.
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xc0) == 0x80) --end;
  return s.substr(0, end);
}

}  // namespace customlabels::core
