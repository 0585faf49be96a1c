// The Custom Label ABI v1: the data layout external readers rely on and the
// two exported symbols. See docs/abi.md and the spec it links.
#ifndef CUSTOMLABELS_CORE_ABI_H_
#define CUSTOMLABELS_CORE_ABI_H_

#include <cstddef>
#include <cstdint>

// The ABI symbols keep default visibility under -fvisibility=hidden.
#define CUSTOMLABELS_EXPORT __attribute__((visibility("default")))

extern "C" {

typedef struct {
  size_t len;
  const unsigned char* buf;
} custom_labels_string_t;

typedef struct {
  custom_labels_string_t key;
  custom_labels_string_t value;
} custom_labels_label_t;

typedef struct {
  custom_labels_label_t* storage;
  size_t count;
  size_t capacity;
} custom_labels_labelset_t;

// Constant 1. Exported with default visibility so readers find it in .dynsym.
CUSTOMLABELS_EXPORT extern const uint32_t custom_labels_abi_version;

// The label set active on the calling thread, or NULL. With otel_thread_ctx_v1
// (otel_thread_ctx.h) the only thread-local variables of the whole addon, so
// its PT_TLS block stays two pointers and glibc serves it from static TLS
// even though the addon is dlopen()ed.
CUSTOMLABELS_EXPORT extern __thread const custom_labels_labelset_t* custom_labels_current_set;

}  // extern "C"

namespace customlabels::core {

// Makes `set` (fully written before this call, never modified afterwards)
// the calling thread's current set: one aligned 8-byte store, ordered after
// every earlier write by a signal fence, because readers interrupt the
// thread itself.
void PublishCurrent(const custom_labels_labelset_t* set) noexcept;

// The calling thread's current set as a reader would see it.
const custom_labels_labelset_t* LoadCurrent() noexcept;

// Address of the calling thread's `custom_labels_current_set` slot.
const custom_labels_labelset_t** CurrentSlot() noexcept;

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_ABI_H_
