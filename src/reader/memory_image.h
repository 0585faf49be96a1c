// A MemorySource over regions of bytes placed at chosen addresses; every
// other address is unreadable. Unit tests build label sets in it, the
// decode fuzzer builds it from its input, and ElfFile parses byte strings
// through it.
#ifndef CUSTOMLABELS_READER_MEMORY_IMAGE_H_
#define CUSTOMLABELS_READER_MEMORY_IMAGE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "memory_source.h"

namespace customlabels::reader {

class MemoryImage final : public MemorySource {
 public:
  // A copy of `bytes` at `address`.
  void Add(uint64_t address, std::string bytes);
  // `size` bytes at `address` that live in the caller's memory (which must
  // outlive the image): lets a test expose its own objects at their real
  // addresses.
  void AddView(uint64_t address, const void* data, uint64_t size);
  // `size` bytes of `fill` at `address`, without storing them (huge values).
  void AddFill(uint64_t address, uint64_t size, unsigned char fill);

  // Regions must not overlap: an Add* that would (or that is empty or wraps
  // the address space) adds nothing, and ok() is false from then on. A read
  // may span regions that touch.
  bool Read(uint64_t address, void* out, size_t size) const override;
  bool ok() const { return ok_; }

 private:
  struct Region {
    uint64_t size = 0;
    const unsigned char* data = nullptr;  // nullptr: every byte is `fill`
    unsigned char fill = 0;
    std::shared_ptr<const std::string> owned;
  };
  void Insert(uint64_t address, Region region);
  std::map<uint64_t, Region> regions_;  // by start address
  bool ok_ = true;
};

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_MEMORY_IMAGE_H_
