// Another module exporting otel_thread_ctx_nodejs_v1 as a C++ thread_local
// with a constructor and a destructor, as @datadog/pprof 5.20's
// dd_pprof.node does (its TLS init function _ZTH25otel_thread_ctx_nodejs_v1
// is exported): customlabels must never write it
// (test/cpp/node_mirrors_test.cc).
#include <cstdint>

struct OtherContext {
  const uint64_t* cped_slot = nullptr;
  const uint64_t* als_handle = nullptr;
  int32_t als_identity_hash = 0;
  uint8_t record_slot_offset = 0;
  uint8_t reserved[3] = {0, 0, 0};
  uint64_t undefined_addr = 0;
  ~OtherContext() { als_handle = nullptr; }
};

thread_local OtherContext otel_thread_ctx_nodejs_v1;

// The calling thread's copy, as the module itself reaches it (which runs its
// initialiser).
extern "C" const void* other_writer_copy() { return &otel_thread_ctx_nodejs_v1; }

// Enters "its own" context on the calling thread.
extern "C" void other_writer_claim(uint64_t cped_slot, uint64_t als_handle) {
  otel_thread_ctx_nodejs_v1.als_handle = reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(als_handle));
  otel_thread_ctx_nodejs_v1.cped_slot = reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(cped_slot));
}
