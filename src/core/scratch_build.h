// The native half of withLabels: decodes the updates lib/ encoded into the
// scratch buffer (src/core/scratch_protocol.h), merges them over a parent set
// and writes the new set, with its thread context record, into a slab. The
// binding's build() is a thin wrapper around BuildFromScratch; the fuzzer
// calls it directly, so every byte it reads is treated as untrusted.
#ifndef CUSTOMLABELS_CORE_SCRATCH_BUILD_H_
#define CUSTOMLABELS_CORE_SCRATCH_BUILD_H_

#include <cstddef>
#include <cstdint>

#include "abi.h"
#include "attribute_key_map.h"
#include "label_set_builder.h"
#include "thread_context_record.h"

namespace customlabels::core {

// A byte range owned by the caller (an ArrayBuffer for the addon).
struct ByteSpan {
  unsigned char* data = nullptr;
  size_t size = 0;
};

enum class BuildStatus {
  kOk,               // results written to the scratch header
  kBadParent,        // the parent (slab, offset) is not a set written by us
  kScratchTooSmall,  // no room for the header and n entries
  kScratchOverflow,  // an entry's lengths run past the scratch buffer
  kBadTraceOp,       // the trace byte is none of the protocol's values
  kBadSlab,          // slab offset misaligned, or slab overlaps the inputs
  kOutOfMemory,      // the builder's storage could not grow (nothing was written)
};

// What BuildFromScratch reuses between calls (to keep its storage) and where
// it gets attribute key indexes from (`keys`: nullptr, or unavailable, means
// no thread context records are built).
struct SetBuilders final {
  LabelSetBuilder labels;
  ThreadContextRecordBuilder record;
  AttributeKeys* keys = nullptr;
};

// The set written by LabelSetBuilder at `offset` in `slab`, validated, or
// nullptr if there is none (null slab) or it is not a well-formed set
// (`*valid` false). Used for parents and for setCurrent().
const custom_labels_labelset_t* SetAt(ByteSpan slab, uint32_t offset, bool* valid);

// Merges the `n` updates in `scratch` over the set at (`parent_slab`,
// `parent_offset`) (none if `parent_slab.data` is null) and writes the result
// into `slab` at `slab_offset`, reporting in the scratch header as the
// protocol says. When records are asked for, the set's thread context record
// follows it in the slab: the trace ids the scratch header names, and as
// attributes its labels whose keys have an index (but not `trace_id` and
// `span_id` when the record carries ids: its header has them). No set is
// written (address 0) when no labels and no record are left. The slab range
// written must not overlap the parent set or the scratch buffer. Never
// throws: its callers are a Node-API callback and V8 frames (the unit), where
// an exception would terminate the process.
BuildStatus BuildFromScratch(SetBuilders* builders, ByteSpan parent_slab, uint32_t parent_offset,
                             ByteSpan scratch, uint32_t n, ByteSpan slab,
                             uint32_t slab_offset) noexcept;

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_SCRATCH_BUILD_H_
