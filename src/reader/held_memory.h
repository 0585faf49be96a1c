// The reads a reader makes while it holds a thread stopped. Every one is
// counted (inspect --json reports them per thread as "held"), and the walks,
// whose length the target decides, draw on a budget: each walk may make at
// most its own bound of reads, and all walks of one pass over a process at
// most kProcessWalkReads, so a hostile thread costs a bounded stop and a
// process of hostile threads a bounded pass.
#ifndef CUSTOMLABELS_READER_HELD_MEMORY_H_
#define CUSTOMLABELS_READER_HELD_MEMORY_H_

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "memory_source.h"

namespace customlabels::reader {

// Reads of one walk: the design doc's walk makes at most 12 + 2 per entry
// of a chain bounded at 32 entries (core/node_walk.h), the Parca agent's at
// most 18 + 2 per entry of its 16 (parca_lookup.h); neither reaches this.
inline constexpr uint64_t kWalkReads = 96;
// Reads of every walk of one pass over a process (inspect, check, one tick
// of sample): about 50 ms of stops at the 2-3 us a read takes here.
inline constexpr uint64_t kProcessWalkReads = 16384;

// What one pass over a process may still spend on walks.
struct WalkBudget {
  uint64_t reads_left = kProcessWalkReads;
  bool spent() const { return reads_left == 0; }
};

// `memory`, counted; reads past `cap` fail (EDQUOT) without reaching it.
class HeldMemory final : public MemorySource {
 public:
  explicit HeldMemory(const MemorySource& memory, uint64_t cap = UINT64_MAX)
      : memory_(memory), cap_(cap) {}
  bool Read(uint64_t address, void* out, size_t size) const override {
    if (reads_ >= cap_) {
      refused_ = true;
      errno = EDQUOT;
      return false;
    }
    ++reads_;
    return memory_.Read(address, out, size);
  }
  uint64_t reads() const { return reads_; }
  // A read was refused: the cap, not the target, ended what read it.
  bool refused() const { return refused_; }

 private:
  const MemorySource& memory_;
  uint64_t cap_;
  mutable uint64_t reads_ = 0;
  mutable bool refused_ = false;
};

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_HELD_MEMORY_H_
