// Hook-free discovery for Node.js readers: instead of a pointer switched on
// every continuation, each thread publishes, once per isolate, where a reader
// finds the AsyncLocalStorage store V8 itself carries from continuation to
// continuation (ContinuationPreservedEmbedderData -> AsyncContextFrame -> our
// private AsyncLocalStorage's store -> a wrapper object -> the set's data).
//
// Two readers' contracts, both written here:
// - otel_thread_ctx_nodejs_v1: the OpenTelemetry eBPF profiler's design doc
//   "Node.js Thread Context" (PR #1861,
//   design-docs/01861-nodejs-thread-context/README.md), schema
//   `nodejs_v1_dev`. The wrapper's internal field at `record_slot_offset`
//   holds the set's OTEP 4947 record (otel_thread_ctx.h).
// - custom_labels_als_handle / custom_labels_als_identity_hash: the Parca
//   agent's Node walk (parca-dev/opentelemetry-ebpf-profiler,
//   support/ebpf/native_custom_labels.h). The wrapper's internal field 0
//   holds a pointer P with the label set at *(P + 24) and the token
//   kParcaToken at P + 32 (label_set_builder.h lays sets out so that P is the
//   set itself).
#ifndef CUSTOMLABELS_CORE_NODE_CONTEXT_H_
#define CUSTOMLABELS_CORE_NODE_CONTEXT_H_

#include <cstddef>
#include <cstdint>

#include "abi.h"

extern "C" {

// The design doc's discovery struct (32 bytes). `cped_slot` is the gate: zero
// means "do not read"; it is written last and cleared first.
typedef struct {
  const uint64_t* cped_slot;   // the isolate's ContinuationPreservedEmbedderData slot
  const uint64_t* als_handle;  // a global handle slot holding our AsyncLocalStorage
  int32_t als_identity_hash;   // its identity hash (the Map bucket)
  uint8_t record_slot_offset;  // byte offset of the record pointer in a wrapper
  uint8_t reserved[3];         // zero
  uint64_t undefined_addr;     // the isolate's tagged `undefined`
} otel_thread_ctx_nodejs_v1_t;

CUSTOMLABELS_EXPORT extern __thread otel_thread_ctx_nodejs_v1_t otel_thread_ctx_nodejs_v1;

// The Parca agent's pair: a global handle slot (dereferenced once per sample)
// and the identity hash of the same AsyncLocalStorage.
CUSTOMLABELS_EXPORT extern __thread const uint64_t* custom_labels_als_handle;
CUSTOMLABELS_EXPORT extern __thread int32_t custom_labels_als_identity_hash;

}  // extern "C"

namespace customlabels::core {

static_assert(sizeof(otel_thread_ctx_nodejs_v1_t) == 32);
static_assert(offsetof(otel_thread_ctx_nodejs_v1_t, als_handle) == 8);
static_assert(offsetof(otel_thread_ctx_nodejs_v1_t, als_identity_hash) == 16);
static_assert(offsetof(otel_thread_ctx_nodejs_v1_t, record_slot_offset) == 20);
static_assert(offsetof(otel_thread_ctx_nodejs_v1_t, undefined_addr) == 24);

// The layout the walk relies on, as found in the running V8 (src/v8 derives
// it from V8's headers, lib/core/node-context.js checks it by walking a known
// frame before anything is published).
struct NodeLayout final {
  uint32_t tagged_size = 0;
  uint32_t js_map_table_offset = 0;           // JSMap -> its OrderedHashMap
  uint32_t ordered_hash_map_header_size = 0;  // bytes before the element count
  uint32_t label_set_slot_offset = 0;         // wrapper -> P (Parca; internal field 0)
  uint32_t record_slot_offset = 0;            // wrapper -> record (internal field 1)
};

// What one thread publishes.
struct NodeDiscovery final {
  uint64_t cped_slot = 0;
  uint64_t als_handle = 0;
  int32_t als_identity_hash = 0;
  uint64_t undefined_value = 0;
  uint32_t record_slot_offset = 0;
};

// The token the Parca agent checks at P + 32 ("ClWrap" in
// polarsignals/custom-labels js/addon.cpp).
inline constexpr uint64_t kParcaToken = 0xEC9EB507FB5D7903ULL;
inline constexpr size_t kParcaSetOffset = 24;
inline constexpr size_t kParcaTokenOffset = 32;

// Fills the calling thread's structs: every other field first, then the
// gates (the Parca handle, then `cped_slot`), each after a signal fence;
// then other modules' unclaimed copies (node_mirrors.h).
void PublishNodeDiscovery(const NodeDiscovery& d) noexcept;
// Clears them, gates first (the mirrors before our own). Safe to call when
// nothing was published.
void ClearNodeDiscovery() noexcept;

// One struct's stores, in the order above: `to` gets `from`, `cped_slot`
// last; Erase zeroes it, `cped_slot` first.
void WriteDiscoveryStruct(otel_thread_ctx_nodejs_v1_t* to, const otel_thread_ctx_nodejs_v1_t& from) noexcept;
void EraseDiscoveryStruct(otel_thread_ctx_nodejs_v1_t* to) noexcept;
// What the calling thread publishes (for tests and diagnostics).
NodeDiscovery LoadNodeDiscovery() noexcept;

// The process-wide choice of hooks for threads that make none of their own
// (lib/core/api.js configure() on the main thread): -1 none, 0 off, 1 on.
void SetHooksDefault(bool on) noexcept;
int HooksDefault() noexcept;

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_NODE_CONTEXT_H_
