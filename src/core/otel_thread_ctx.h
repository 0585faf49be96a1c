// OpenTelemetry's thread context (OTEP 4947, "Thread Context"): the record
// layout external readers rely on and the TLS symbol that points to the
// calling thread's record. Switched together with custom_labels_current_set
// (abi.h): every label set we build carries its record, if it has one.
#ifndef CUSTOMLABELS_CORE_OTEL_THREAD_CTX_H_
#define CUSTOMLABELS_CORE_OTEL_THREAD_CTX_H_

#include <cstddef>
#include <cstdint>

#include "abi.h"

extern "C" {

// The Thread-Local Context Record header: byte-packed, host byte order,
// followed by `attrs_data_size` bytes of entries {u8 key index, u8 length,
// length bytes of UTF-8}. The key index refers to the process context's
// `threadlocal.attribute_key_map` (process_context.h).
typedef struct __attribute__((packed)) {
  uint8_t trace_id[16];  // W3C byte order; all zero: no trace
  uint8_t span_id[8];
  uint8_t valid;        // 1: readers use the record
  uint8_t trace_flags;  // W3C trace-flags; 0 without a trace
  uint16_t attrs_data_size;
} otel_thread_ctx_record_t;

// The record of the scope running on the calling thread, or NULL. A second
// pointer next to custom_labels_current_set (8 more bytes of TLS).
CUSTOMLABELS_EXPORT extern __thread const otel_thread_ctx_record_t* otel_thread_ctx_v1;

}  // extern "C"

namespace customlabels::core {

// Sizes the OTEP sets or recommends.
struct ThreadContextLimits final {
  static constexpr size_t kHeaderBytes = 28;
  // "We recommend keeping at or under 640 bytes for the total record."
  static constexpr size_t kMaxRecordBytes = 640;
  static constexpr size_t kMaxAttrsBytes = kMaxRecordBytes - kHeaderBytes;  // 612
  static constexpr size_t kMaxValueBytes = 255;                             // the u8 length
  static constexpr size_t kMaxKeys = 256;                                   // the u8 key index
  static constexpr size_t kAlignment = 2;  // "at least a 2-byte boundary"
};

static_assert(sizeof(otel_thread_ctx_record_t) == ThreadContextLimits::kHeaderBytes);
static_assert(offsetof(otel_thread_ctx_record_t, valid) == 24);
static_assert(offsetof(otel_thread_ctx_record_t, trace_flags) == 25);
static_assert(offsetof(otel_thread_ctx_record_t, attrs_data_size) == 26);

// Makes `record` (fully written before, never modified afterwards) the
// calling thread's record; one aligned 8-byte store after a signal fence,
// as PublishCurrent() does for label sets.
void PublishThreadContext(const otel_thread_ctx_record_t* record) noexcept;
const otel_thread_ctx_record_t* LoadThreadContext() noexcept;
const otel_thread_ctx_record_t** ThreadContextSlot() noexcept;

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_OTEL_THREAD_CTX_H_
