// The Node.js discovery struct of the OpenTelemetry eBPF profiler's design
// doc "Node.js Thread Context" (PR #1861), as src/core/node_context.h
// defines it: what fake_addon.c exports and malformed_walks.c publishes.
#ifndef CUSTOMLABELS_TEST_TARGETS_FAKE_NODE_CTX_H_
#define CUSTOMLABELS_TEST_TARGETS_FAKE_NODE_CTX_H_

#include <stdint.h>

typedef struct {
  uint64_t cped_slot;
  uint64_t als_handle;
  int32_t als_identity_hash;
  uint8_t record_slot_offset;
  uint8_t reserved[3];
  uint64_t undefined_addr;
} fake_node_ctx_t;

#endif  // CUSTOMLABELS_TEST_TARGETS_FAKE_NODE_CTX_H_
