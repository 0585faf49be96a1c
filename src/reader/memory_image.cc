#include "memory_image.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

namespace customlabels::reader {

void MemoryImage::Add(uint64_t address, std::string bytes) {
  auto owned = std::make_shared<const std::string>(std::move(bytes));
  Region r;
  r.size = owned->size();
  r.data = reinterpret_cast<const unsigned char*>(owned->data());
  r.owned = std::move(owned);
  Insert(address, std::move(r));
}

void MemoryImage::AddView(uint64_t address, const void* data, uint64_t size) {
  Region r;
  r.size = size;
  r.data = static_cast<const unsigned char*>(data);
  Insert(address, std::move(r));
}

void MemoryImage::AddFill(uint64_t address, uint64_t size, unsigned char fill) {
  Region r;
  r.size = size;
  r.fill = fill;
  Insert(address, std::move(r));
}

void MemoryImage::Insert(uint64_t address, Region region) {
  // Empty, wrapping past the end of the address space, or overlapping.
  if (region.size == 0 || region.size - 1 > UINT64_MAX - address) {
    ok_ = false;
    return;
  }
  const uint64_t last = address + (region.size - 1);
  auto next = regions_.lower_bound(address);
  if (next != regions_.end() && next->first <= last) {
    ok_ = false;
    return;
  }
  if (next != regions_.begin()) {
    const auto& [start, prev] = *std::prev(next);
    if (start + (prev.size - 1) >= address) {
      ok_ = false;
      return;
    }
  }
  regions_.emplace(address, std::move(region));
}

bool MemoryImage::Read(uint64_t address, void* out, size_t size) const {
  auto* dest = static_cast<unsigned char*>(out);
  uint64_t at = address;
  uint64_t left = size;
  while (left != 0) {
    auto it = regions_.upper_bound(at);
    if (it == regions_.begin()) return false;
    --it;
    const uint64_t offset = at - it->first;
    if (offset >= it->second.size) return false;
    const uint64_t n = std::min(left, it->second.size - offset);
    if (it->second.data != nullptr) {
      std::memcpy(dest, it->second.data + offset, n);
    } else {
      std::memset(dest, it->second.fill, n);
    }
    dest += n;
    left -= n;
    if (left != 0 && n > UINT64_MAX - at) return false;  // would wrap
    at += n;
  }
  return true;
}

}  // namespace customlabels::reader
