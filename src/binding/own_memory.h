// Reading this process's own memory without faulting: what the in-process
// walk (walkNodeContext) and the test-only helpers (testing.h) read
// through.
#ifndef CUSTOMLABELS_BINDING_OWN_MEMORY_H_
#define CUSTOMLABELS_BINDING_OWN_MEMORY_H_

#include <cstdint>

#include "../core/node_walk.h"

namespace customlabels::binding {

// Reads the 8 bytes at `address` of this process through a pipe: write(2)
// copies from the address or fails with EFAULT, never faults, and (unlike
// process_vm_readv) also works under qemu-user, whose guest addresses are
// not the host's.
bool ReadOwnWord(uint64_t address, uint64_t* out);

class OwnMemory final : public core::WordSource {
 public:
  bool ReadWord(uint64_t address, uint64_t* out) const override { return ReadOwnWord(address, out); }
};

}  // namespace customlabels::binding

#endif  // CUSTOMLABELS_BINDING_OWN_MEMORY_H_
