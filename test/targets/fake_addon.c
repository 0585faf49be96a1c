// The ABI half of a hostile target: a shared library named like the addon
// (the test builds it as <tmp>/customlabels.node) that exports the two Custom
// Label ABI v1 symbols exactly as readers look for them, and lets the target
// publish any pointer at all as a thread's current set. It also exports the
// OpenTelemetry thread context (OTEP 4947) as the addon does,
// otel_thread_ctx_v1, unless built with -DFAKE_ADDON_NO_OTEL (an addon from
// before it). Built with -DFAKE_ADDON_NODE it also exports the Node.js
// discovery struct (otel_thread_ctx_nodejs_v1) and the Parca pair, which
// malformed_walks.c points at heaps of its own making.
//
// Build: cc -fPIC -shared -ftls-model=global-dynamic -mtls-dialect=gnu2
//        (aarch64: -mtls-dialect=desc) -Wl,-z,now -o customlabels.node fake_addon.c
#include <stdint.h>

#define EXPORT __attribute__((visibility("default"), used))

EXPORT const uint32_t custom_labels_abi_version = 1;
EXPORT __thread const void* custom_labels_current_set;

// Publishes `set` (any value, valid or not) as the calling thread's set.
EXPORT void fake_publish(const void* set) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  custom_labels_current_set = set;
}

// The calling thread's slot, for targets that keep rewriting it.
EXPORT const void* volatile* fake_slot(void) { return &custom_labels_current_set; }

#ifndef FAKE_ADDON_NO_OTEL
EXPORT __thread void* otel_thread_ctx_v1;

// Publishes `record` (any value, valid or not) as the calling thread's
// OpenTelemetry context record.
EXPORT void fake_otel_publish(void* record) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  otel_thread_ctx_v1 = record;
}
#endif

#ifdef FAKE_ADDON_NODE
#include "fake_node_ctx.h"

EXPORT __thread fake_node_ctx_t otel_thread_ctx_nodejs_v1;
EXPORT __thread const uint64_t* custom_labels_als_handle;
EXPORT __thread int32_t custom_labels_als_identity_hash;

// Publishes `d` (any values at all) as the calling thread's struct, the gate
// (cped_slot) last.
EXPORT void fake_node_publish(const fake_node_ctx_t* d) {
  otel_thread_ctx_nodejs_v1.als_handle = d->als_handle;
  otel_thread_ctx_nodejs_v1.als_identity_hash = d->als_identity_hash;
  otel_thread_ctx_nodejs_v1.record_slot_offset = d->record_slot_offset;
  otel_thread_ctx_nodejs_v1.undefined_addr = d->undefined_addr;
  custom_labels_als_identity_hash = d->als_identity_hash;
  custom_labels_als_handle = (const uint64_t*)(uintptr_t)d->als_handle;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  otel_thread_ctx_nodejs_v1.cped_slot = d->cped_slot;
}
#endif
