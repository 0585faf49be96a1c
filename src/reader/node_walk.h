// The hook-free Node.js walk, read from outside: from a thread's
// otel_thread_ctx_nodejs_v1 (the OpenTelemetry eBPF profiler's design doc
// "Node.js Thread Context", PR #1861) through V8's continuation-preserved
// embedder data (an AsyncContextFrame: a JS Map) to the store of the
// writer's AsyncLocalStorage, a wrapper object whose internal fields hold the
// label set (field 0, as the Parca agent reads it) and the OTEP 4947 record
// (at `record_slot_offset`). Everything comes from the target and is
// untrusted: this file checks the discovery struct, then runs the walk the
// addon itself runs before it publishes (core/node_walk.h), which bounds
// every count, index and chain and ends with a status, never a guess.
#ifndef CUSTOMLABELS_READER_NODE_WALK_H_
#define CUSTOMLABELS_READER_NODE_WALK_H_

#include <cstdint>
#include <string>

#include "memory_source.h"

namespace customlabels::reader {

constexpr const char* kNodeSymbol = "otel_thread_ctx_nodejs_v1";
constexpr uint64_t kNodeStructBytes = 32;

// The discovery struct as read.
struct NodeDiscoveryWords {
  uint64_t cped_slot = 0;  // the gate
  uint64_t als_handle = 0;
  int32_t als_identity_hash = 0;
  uint8_t record_slot_offset = 0;
  uint8_t reserved[3] = {0, 0, 0};
  uint64_t undefined_value = 0;
};

struct NodeWalk {
  // "found", "gate-closed" (nothing published on this thread), "no-frame",
  // "detached" (the scope ended: the frame maps our storage to undefined),
  // "not-in-frame", "unreadable: ...", "malformed: ...".
  std::string status;
  NodeDiscoveryWords words;
  uint64_t frame = 0;      // tagged
  uint64_t label_set = 0;  // internal field 0 ("found")
  uint64_t record = 0;     // the record slot ("found"; 0: none)
  bool found() const { return status == "found"; }
};

// Walks from the discovery struct at `struct_address`.
NodeWalk WalkNode(const MemorySource& memory, uint64_t struct_address);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_NODE_WALK_H_
