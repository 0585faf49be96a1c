// Where the reader reads bytes from: a live process (ProcessMemory), an image
// held in memory (MemoryImage: unit tests, fuzzing) or a file (FileBytes).
// Everything read through it is untrusted.
#ifndef CUSTOMLABELS_READER_MEMORY_SOURCE_H_
#define CUSTOMLABELS_READER_MEMORY_SOURCE_H_

#include <cstddef>
#include <cstdint>

namespace customlabels::reader {

class MemorySource {
 public:
  virtual ~MemorySource() = default;
  // Copies the `size` bytes at `address` to `out`; false if any of them
  // cannot be read (also when address + size wraps). Reading 0 bytes
  // always succeeds.
  virtual bool Read(uint64_t address, void* out, size_t size) const = 0;

  template <typename T>
  bool ReadValue(uint64_t address, T* out) const {
    return Read(address, out, sizeof(T));
  }
};

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_MEMORY_SOURCE_H_
