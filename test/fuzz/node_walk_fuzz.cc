// libFuzzer target: the reader's hook-free Node.js walks from an arbitrary
// discovery struct through arbitrary memory: the design doc's (reader/
// node_walk.h over core/node_walk.h) and the Parca agent's as its fork does
// it (reader/parca_lookup.h), from thread-local words that lead to the same
// heap. The input lays out a plausible heap (the struct, the continuation
// data slot, a frame, an OrderedHashMap with counts, buckets and entries, the
// storage handle, a wrapper) at addresses it chooses, then up to 8 regions of
// raw bytes or fills, so the fuzzer starts near valid walks and spoils them.
//
// Oracle: no crash, leak or undefined behaviour (ASan, UBSan), and:
// - the status is one of the documented ones;
// - a closed gate reads the struct and nothing else;
// - reads are bounded by the walk's shape: the struct, a fixed number of
//   words, then 2 words per entry of a chain of at most 32, all within the
//   reader's budget of reads per walk (held_memory.h);
// - the Parca walk makes at most 18 reads besides 2 per entry of its 16,
//   ends in "found" only with the token read, and its set is its walk's
//   when found, else the current set it read;
// - "found" only with the frame and store that were read;
// - the same input walks the same way twice.
//
// clang-format off
// fuzz-sources: src/reader/node_walk.cc src/core/node_walk.cc src/reader/memory_image.cc src/reader/format.cc src/reader/parca_lookup.cc src/reader/reader_lookups.cc src/reader/elf_file.cc src/reader/file_bytes.cc src/reader/abi_reader.cc src/reader/abi_names.cc src/reader/process.cc src/reader/label_set_decoder.cc src/reader/otel_record.cc
// clang-format on
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "reader/held_memory.h"
#include "reader/memory_image.h"
#include "reader/node_walk.h"
#include "reader/parca_lookup.h"

using fuzz::Input;
using fuzz::Require;

namespace {

class CountingReads final : public customlabels::reader::MemorySource {
 public:
  explicit CountingReads(const MemorySource& inner) : inner_(inner) {}
  bool Read(uint64_t address, void* out, size_t size) const override {
    ++reads;
    bytes += size;
    return inner_.Read(address, out, size);
  }
  mutable uint64_t reads = 0;
  mutable uint64_t bytes = 0;

 private:
  const MemorySource& inner_;
};

std::string Words(const std::vector<uint64_t>& words) {
  std::string out(words.size() * 8, '\0');
  if (!words.empty()) std::memcpy(&out[0], words.data(), out.size());
  return out;
}

uint64_t Smi(int64_t v) { return static_cast<uint64_t>(v) << 32; }

bool Known(const std::string& status) {
  for (const char* s : {"found", "gate-closed", "no-frame", "not-in-frame", "detached"}) {
    if (status == s) return true;
  }
  return status.rfind("malformed: ", 0) == 0 || status.rfind("unreadable: ", 0) == 0;
}

}  // namespace

// The input, little-endian: the struct's 32 bytes; then a heap flag u8 (odd:
// lay out the plausible heap) with buckets u8 (log2, mod 8), entries u8,
// our entry's index u8, and per entry (up to 16) its key-is-ours u8 and chain
// u8; then up to 8 regions: address u64, kind u8, and either (odd kind)
// length u64 and fill byte u8, or length u16 and that many bytes.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace customlabels::reader;  // NOLINT(build/namespaces): this one function
  Input in{data, size};
  constexpr uint64_t kStruct = 0x10000, kSlot = 0x20000, kFrame = 0x30000, kTable = 0x40000,
                     kHandle = 0x50000, kAls = 0x60001, kWrapper = 0x70000, kTp = 0x90000,
                     kIsolate = 0xa0000;
  // The Parca agent's thread-local words and isolate, leading to the same
  // frame (its setup as its loaders would make it for Node 24).
  ParcaSetup parca;
  parca.addon_matches = parca.v8_loaded = parca.has_als_data = true;
  parca.current_set_offset = static_cast<uint64_t>(-0x100);
  parca.als_hash_offset = static_cast<uint64_t>(-0x108);
  parca.als_handle_offset = static_cast<uint64_t>(-0x110);
  parca.isolate_offset = parca.isolate_offset_here = 0x200;
  parca.isolate_table = ".dynsym";
  parca.cped_offset = 632;
  parca.wrapped_object_offset = 32;
  std::string raw = in.Bytes(32);
  raw.resize(32, '\0');
  MemoryImage image;
  image.Add(kStruct, raw);
  if (in.Byte() % 2 == 1) {
    const int64_t buckets = int64_t{1} << (in.Byte() % 8);
    const int64_t capacity = 2 * buckets;
    const int64_t n = in.Byte() % 17;
    std::vector<uint64_t> table{0x2001, Smi(3 + buckets + 3 * capacity), Smi(n), Smi(0),
                                Smi(buckets)};
    for (int64_t b = 0; b < buckets; ++b) table.push_back(Smi(static_cast<int8_t>(in.Byte())));
    for (int64_t e = 0; e < capacity; ++e) {
      const bool ours = e < n && in.Byte() % 2 == 1;
      table.push_back(ours ? kAls : 0x6f001);
      table.push_back(kWrapper + 1);
      table.push_back(Smi(e < n ? static_cast<int8_t>(in.Byte()) : -1));
    }
    image.Add(kSlot, Words({kFrame + 1}));
    image.Add(kFrame, Words({0x1001, 0x1001, 0x1001, kTable + 1}));
    image.Add(kTable, Words(table));
    image.Add(kHandle, Words({kAls}));
    image.Add(kWrapper, Words(std::vector<uint64_t>(34, 0xabc000)));
    std::vector<uint64_t> tls(0x40, 0);  // [kTp - 0x100, kTp + 0x100)
    tls[0x20 - 2] = kHandle;             // kTp - 0x110
    std::memcpy(&tls[0x20 - 1], raw.data() + 16, 4);  // kTp - 0x108: the hash
    tls[0x20] = kTp;                     // the TCB's self pointer (*(tp))
    tls[0x20 + 2] = kTp;                 // *(tp + 16): the main block
    image.Add(kTp - 0x100, Words(tls));
    image.Add(kTp + 0x200, Words({kIsolate}));
    image.Add(kIsolate + 632, Words({kFrame + 1}));
  }
  fuzz::AddRegions(&in, &image, 8);

  const CountingReads memory(image);
  const NodeWalk w = WalkNode(memory, kStruct);
  Require(Known(w.status));
  uint64_t gate = 0;
  std::memcpy(&gate, raw.data(), 8);
  Require((w.status == "gate-closed") == (gate == 0));
  if (w.status == "gate-closed") Require(memory.reads == 1);
  // The struct; the slot, the table word, the length, 3 counts, the handle,
  // the bucket; then key and chain per entry (at most 2 x 2^16 of them); the
  // value and the store's two fields.
  Require(memory.reads <= 1 + 8 + 2 * 32 + 3);
  Require(memory.reads <= kWalkReads);
  Require(memory.bytes <= 32 + 8 * (memory.reads - 1));
  if (w.found()) Require(w.frame != 0 && w.frame != w.words.undefined_value);

  const NodeWalk again = WalkNode(image, kStruct);
  Require(again.status == w.status && again.label_set == w.label_set && again.record == w.record);

  const CountingReads parca_memory(image);
  const ParcaThread p = ReadParcaThread(parca, 0x3e /* EM_X86_64 */, kTp, parca_memory);
  Require(parca_memory.reads <= 18 + 2 * 16);
  Require(parca_memory.reads <= kWalkReads);
  Require(!p.walk.empty());
  if (p.walk == "found") {
    Require(p.walk_set != 0 && p.set == p.walk_set && p.via == "its Node walk");
  } else {
    Require(p.set == 0 || p.set == p.native_set);
  }
  return 0;
}
