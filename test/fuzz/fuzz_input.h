// What the reader's fuzz targets share: a failed check aborts (libFuzzer
// reports it), a MemorySource that counts the bytes read, the input as a
// little-endian stream (reads past its end give zeros), and the check that
// output is UTF-8 without control characters.
#ifndef CUSTOMLABELS_TEST_FUZZ_FUZZ_INPUT_H_
#define CUSTOMLABELS_TEST_FUZZ_FUZZ_INPUT_H_

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "reader/memory_image.h"
#include "reader/memory_source.h"

namespace fuzz {

using customlabels::reader::MemorySource;

inline void Require(bool ok) {
  if (!ok) std::abort();
}

class Counting final : public MemorySource {
 public:
  explicit Counting(const MemorySource& inner) : inner_(inner) {}
  bool Read(uint64_t address, void* out, size_t size) const override {
    bytes += size;
    return inner_.Read(address, out, size);
  }
  mutable uint64_t bytes = 0;

 private:
  const MemorySource& inner_;
};

struct Input {
  const uint8_t* data;
  size_t size;
  bool done() const { return size == 0; }
  uint8_t Byte() {
    if (size == 0) return 0;
    --size;
    return *data++;
  }
  uint16_t U16() {
    const unsigned low = Byte();
    return static_cast<uint16_t>(low | unsigned{Byte()} << 8);
  }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{Byte()} << (8 * i);
    return v;
  }
  std::string Bytes(size_t n) {
    n = std::min(n, size);
    std::string out(reinterpret_cast<const char*>(data), n);
    data += n;
    size -= n;
    return out;
  }
};

// Up to `max` regions into `image`, as the targets' inputs lay them out:
// address u64, kind u8, and either (odd kind) length u64 and fill byte u8,
// or length u16 and that many bytes.
inline void AddRegions(Input* in, customlabels::reader::MemoryImage* image, int max) {
  for (int i = 0; i < max && !in->done(); ++i) {
    const uint64_t at = in->U64();
    if (in->Byte() % 2 == 1) {
      const uint64_t length = in->U64();
      image->AddFill(at, length, in->Byte());
    } else {
      image->Add(at, in->Bytes(in->U16()));
    }
  }
}

inline bool ValidUtf8NoControls(const std::string& s, bool newlines) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && !(newlines && c == '\n')) || c == 0x7f) return false;
      ++i;
      continue;
    }
    size_t n = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

}  // namespace fuzz

#endif  // CUSTOMLABELS_TEST_FUZZ_FUZZ_INPUT_H_
