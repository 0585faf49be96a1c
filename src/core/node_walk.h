// The readers' walk from a thread's published discovery data to the store of
// our AsyncLocalStorage, as node_context.h describes it, over any memory. The
// addon runs it in-process over a known frame before it publishes anything
// (the layout probe), so what readers are told is what the running V8 does.
// Every word is read through `WordSource`, bounded and validated as the
// design doc's reader does: a malformed table yields a status, never a read
// past what the table claims.
#ifndef CUSTOMLABELS_CORE_NODE_WALK_H_
#define CUSTOMLABELS_CORE_NODE_WALK_H_

#include <cstdint>

#include "node_context.h"

namespace customlabels::core {

class WordSource {
 public:
  virtual ~WordSource() = default;
  // Reads the 8-byte word at `address`; false if it cannot be read.
  virtual bool ReadWord(uint64_t address, uint64_t* out) const = 0;
};

enum class WalkStatus {
  kFound,       // the store holds a wrapper: `label_set`, `record` are its slots
  kGateClosed,  // cped_slot is zero
  kNoFrame,     // the continuation data is `undefined`
  kNotInFrame,  // the frame has no entry for our AsyncLocalStorage
  kDetached,    // the entry's value is `undefined`
  kMalformed,   // a word is not what the layout says it must be
  kUnreadable,  // a read failed
};

struct WalkResult final {
  WalkStatus status = WalkStatus::kUnreadable;
  uint64_t frame = 0;      // the tagged frame (a JSMap)
  uint64_t value = 0;      // the tagged store value
  uint64_t label_set = 0;  // wrapper internal field 0 (kFound)
  uint64_t record = 0;     // wrapper record slot (kFound)
  // kMalformed, kUnreadable: what was wrong or could not be read, in words
  // ("the frame's table", "bucket count"), for diagnostics; empty otherwise.
  const char* what = "";
};

// Entries of one bucket's chain the walk follows. A frame holds one entry
// per AsyncLocalStorage with a store, in at least half as many buckets: a
// chain of 32 is a heap being rewritten or a hostile one, and the walk stops
// there ("malformed") rather than hold a stopped thread through it.
inline constexpr int64_t kMaxChainEntries = 32;

// The walk, with V8's fixed OrderedHashMap facts (three counts, then the
// buckets, then entries of key, value, chain; load factor 2).
WalkResult WalkNodeContext(const WordSource& memory, const NodeDiscovery& d,
                           const NodeLayout& layout);

const char* WalkStatusName(WalkStatus status);

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_NODE_WALK_H_
