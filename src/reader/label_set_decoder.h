// Decodes a thread's custom_labels_labelset_t from any MemorySource: a pure
// function of the bytes it reads, so the same code runs against a live
// process, a unit test's image and a fuzzer's input. Every read is bounded by
// ReadLimits; nothing is allocated from a size or count the target states.
#ifndef CUSTOMLABELS_READER_LABEL_SET_DECODER_H_
#define CUSTOMLABELS_READER_LABEL_SET_DECODER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "memory_source.h"
#include "read_limits.h"

namespace customlabels::reader {

// One element of storage[] as the reader copied it.
struct Slot {
  uint64_t index = 0;
  bool key_null = false;    // key.buf is NULL: the ABI says the label is ignored
  bool value_null = false;  // key set but value.buf NULL: the ABI forbids it; ignored
  bool unreadable = false;  // its key or value bytes could not be read; ignored
  std::string key, value;   // the bytes kept: all of them, or a prefix a limit cut
  uint64_t key_length = 0, value_length = 0;           // the lengths the target published
  Limit key_cut = kLimitNone, value_cut = kLimitNone;  // the limit that cut each

  bool ignored() const { return key_null || value_null || unreadable; }
};

struct DecodedSet {
  static constexpr size_t kMaxProblems = 16;
  static constexpr uint64_t kChunkLabels = 128;  // labels per storage read

  uint64_t address = 0;                           // the set pointer; 0: the thread has no set
  std::string error;                              // non-empty: nothing of the set could be read
  uint64_t storage = 0, count = 0, capacity = 0;  // the header as published
  std::vector<Slot> slots;                        // storage[0 .. slots.size()), in order
  // Why fewer than `count` labels were read: a limit, or kLimitNone when the
  // storage became unreadable (then `problems` says where).
  Limit labels_cut = kLimitNone;
  // ABI violations that did not stop the read, at most kMaxProblems of them.
  std::vector<std::string> problems;
  uint64_t more_problems = 0;  // how many more there were

  bool ok() const { return error.empty(); }
  bool has_set() const { return address != 0; }
  // Adds a problem note, or counts it once kMaxProblems are kept.
  void Problem(std::string note);
};

// Reads the set at `set_address` (0: no set). Misaligned pointers, NULL
// values, unreadable keys and values and unreadable storage past the first
// label are problems, reported and skipped; an unreadable header or first
// label is an error.
DecodedSet DecodeLabelSet(const MemorySource& memory, uint64_t set_address,
                          const ReadLimits& limits);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_LABEL_SET_DECODER_H_
