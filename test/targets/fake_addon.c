// The ABI half of a hostile target: a shared library named like the addon
// (the test builds it as <tmp>/customlabels.node) that exports the two Custom
// Label ABI v1 symbols exactly as readers look for them, and lets the target
// publish any pointer at all as a thread's current set. It also exports the
// OpenTelemetry thread context (OTEP 4947) as the addon does,
// otel_thread_ctx_v1, unless built with -DFAKE_ADDON_NO_OTEL (an addon from
// before it).
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
