// Another module exporting otel_thread_ctx_nodejs_v1, as @datadog/pprof's
// dd_pprof.node does (test/cpp/node_mirrors_test.cc dlopen()s it): its own
// thread-local copy, filled only when "its context is entered".
#include <cstdint>

extern "C" {

typedef struct {
  const uint64_t* cped_slot;
  const uint64_t* als_handle;
  int32_t als_identity_hash;
  uint8_t record_slot_offset;
  uint8_t reserved[3];
  uint64_t undefined_addr;
} other_ctx_t;

__attribute__((visibility("default"))) __thread other_ctx_t otel_thread_ctx_nodejs_v1;

// Enters "its own" context on the calling thread.
__attribute__((visibility("default"))) void other_writer_claim(uint64_t cped_slot,
                                                               uint64_t als_handle) {
  otel_thread_ctx_nodejs_v1.als_handle =
      reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(als_handle));
  otel_thread_ctx_nodejs_v1.als_identity_hash = 99;
  otel_thread_ctx_nodejs_v1.record_slot_offset = 32;
  otel_thread_ctx_nodejs_v1.undefined_addr = 0x61;
  otel_thread_ctx_nodejs_v1.cped_slot =
      reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(cped_slot));
}

// The calling thread's copy, as the module itself reaches it.
__attribute__((visibility("default"))) const void* other_writer_copy() {
  return &otel_thread_ctx_nodejs_v1;
}

}  // extern "C"
