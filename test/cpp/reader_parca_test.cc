// The Parca agent's lookup as the reader applies it (reader/parca_lookup.h):
// its loaders' setup from stand-in Node.js executables (fake_node.cc: the
// isolate symbol in .dynsym or only in .symtab, per major), then its eBPF
// code's reads over memory images: the current set, its Node walk and each
// step that ends it, the 16-entry bound, and its 32-bit arithmetic.
#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "reader/elf_file.h"
#include "reader/memory_image.h"
#include "reader/parca_lookup.h"
#include "reader/reader_lookups.h"

namespace customlabels::reader {
namespace {

constexpr uint64_t kTp = 0x70000000, kIsolate = 0x1000000, kFrame = 0x2000000,
                   kTable = 0x3000000, kHandle = 0x3800000, kAls = 0x4000001,
                   kWrapper = 0x5000000, kSet = 0x6000000, kStorage = 0x6001000,
                   kBytes = 0x6002000, kNativeSet = 0x6100000;
constexpr int64_t kIsolateOffset = -0x100;
constexpr uint64_t kCurrentSet = static_cast<uint64_t>(-0x40),
                   kHashAt = static_cast<uint64_t>(-0x48), kHandleAt = static_cast<uint64_t>(-0x50);

uint64_t Smi(int64_t v) { return static_cast<uint64_t>(v) << 32; }

// Counts what was asked of it, to prove reads bounded.
class Counting final : public MemorySource {
 public:
  explicit Counting(const MemorySource& inner) : inner_(inner) {}
  bool Read(uint64_t address, void* out, size_t size) const override {
    ++reads;
    return inner_.Read(address, out, size);
  }
  mutable uint64_t reads = 0;

 private:
  const MemorySource& inner_;
};

// A thread of a Node 24 process as the fork reads it, laid out in words;
// each test spoils one thing before Build().
struct ParcaHeap {
  int64_t buckets = 4;
  int32_t hash = 6;
  std::vector<int64_t> heads{-1, -1, -1, -1};
  struct Entry {
    uint64_t key, value;
    int64_t next;
  };
  std::vector<Entry> entries{{kAls, kWrapper + 1, -1}};
  uint64_t frame = kFrame + 1;  // at isolate + 632
  uint64_t token = 0xEC9EB507FB5D7903ULL;
  uint64_t native_set = 0;  // custom_labels_current_set
  uint64_t buckets_word = 0;  // 0: Smi(buckets)
  uint64_t head_word = 0;     // 0: Smi(heads[...]) for our bucket too

  ParcaHeap() { heads[hash & 3] = 0; }

  static void Words(MemoryImage* image, uint64_t at, const std::vector<uint64_t>& words) {
    std::string bytes(words.size() * 8, '\0');
    std::memcpy(&bytes[0], words.data(), bytes.size());
    image->Add(at, std::move(bytes));
  }
  // A set of one label k=v at `at`, with its own address at +24 and the
  // token at +32 (the layout the fork expects behind P).
  static void Set(MemoryImage* image, uint64_t at, uint64_t token, char value) {
    Words(image, at, {at + 0x1000, 1, 1, at, token});
    Words(image, at + 0x1000, {1, at + 0x2000, 1, at + 0x2001});
    image->Add(at + 0x2000, std::string("k") + value);
  }

  MemoryImage Build() const {
    MemoryImage image;
    std::vector<uint64_t> tls(0x30, 0);  // [kTp - 0x100, kTp + 0x80)
    const auto at = [&tls](uint64_t address) -> uint64_t& { return tls[(address - (kTp - 0x100)) / 8]; };
    at(kTp + static_cast<uint64_t>(kIsolateOffset)) = kIsolate;
    at(kTp + kCurrentSet) = native_set;
    at(kTp + kHandleAt) = kHandle;
    std::memcpy(&at(kTp + kHashAt), &hash, 4);
    at(kTp) = kTp;       // the TCB's self pointer: *(tp)
    at(kTp + 16) = kTp;  // *(*(tp) + 16): the main executable's block
    Words(&image, kTp - 0x100, tls);
    Words(&image, kIsolate + 632, {frame});
    Words(&image, kFrame, {0x1001, 0x1001, 0x1001, kTable + 1});
    std::vector<uint64_t> table{0x1001, Smi(3 + buckets + 3 * 2 * buckets),
                                Smi(static_cast<int64_t>(entries.size())), Smi(0),
                                buckets_word != 0 ? buckets_word : Smi(buckets)};
    for (int64_t h : heads) table.push_back(Smi(h));
    if (head_word != 0) table[5 + (hash & (buckets - 1))] = head_word;
    for (const Entry& e : entries) {
      table.push_back(e.key);
      table.push_back(e.value);
      table.push_back(Smi(e.next));
    }
    Words(&image, kTable, table);
    Words(&image, kHandle, {kAls});
    Words(&image, kWrapper, {0x1001, 0x1001, 0x1001, 0, kSet, 0});
    Set(&image, kSet, token, 'w');
    Set(&image, kNativeSet, 0, 'n');
    return image;
  }
};

ParcaSetup Node24() {
  ParcaSetup s;
  s.addon_matches = s.v8_loaded = s.has_als_data = true;
  s.current_set_offset = kCurrentSet;
  s.als_hash_offset = kHashAt;
  s.als_handle_offset = kHandleAt;
  s.version = NodeVersion{24, 10, 0};
  s.cped_offset = 632;
  s.wrapped_object_offset = 32;
  s.isolate_offset = s.isolate_offset_here = kIsolateOffset;
  s.isolate_table = ".dynsym";
  return s;
}

TEST(ParcaWalk, FindsTheStoreAndItsSetWinsOverTheCurrentSet) {
  ParcaHeap h;
  h.native_set = kNativeSet;
  const MemoryImage image = h.Build();
  const ParcaThread t = ReadParcaThread(Node24(), EM_X86_64, kTp, image);
  EXPECT_EQ(t.walk, "found");
  EXPECT_EQ(t.native_set, kNativeSet);
  EXPECT_EQ(t.isolate, kIsolate);
  EXPECT_EQ(t.isolate_here, kIsolate);
  EXPECT_EQ(t.cped, kFrame + 1);
  EXPECT_EQ(t.walk_set, kSet);
  // interpreter_dispatcher.ebpf.c: the walk's set replaces the current one.
  EXPECT_EQ(t.set, kSet);
  EXPECT_EQ(t.via, "its Node walk");
}

TEST(ParcaWalk, WhereTheWalkFailsTheCurrentSetStays) {
  ParcaHeap h;
  h.native_set = kNativeSet;
  h.frame = 0;  // nothing at isolate + 632
  const MemoryImage image = h.Build();
  const ParcaThread t = ReadParcaThread(Node24(), EM_X86_64, kTp, image);
  EXPECT_EQ(t.walk, "failed to get v8 CPED address");
  EXPECT_EQ(t.set, kNativeSet);
  EXPECT_EQ(t.via, "custom_labels_current_set");
}

TEST(ParcaWalk, AnotherObjectThanAWrappedSetIsNotALabelSet) {
  ParcaHeap h;
  h.token = 0x1234;
  const MemoryImage image = h.Build();
  const ParcaThread t = ReadParcaThread(Node24(), EM_X86_64, kTp, image);
  EXPECT_EQ(t.walk, "not a label set");
  EXPECT_EQ(t.set, 0u);
  EXPECT_EQ(t.via, "");
}

TEST(ParcaWalk, EachStepEndsInTheForksWords) {
  struct Case {
    const char* name;
    void (*spoil)(ParcaHeap*);
    const char* walk;
  };
  const Case cases[] = {
      {"no CPED", [](ParcaHeap* h) { h->frame = 0; }, "failed to get v8 CPED address"},
      {"unmapped frame", [](ParcaHeap* h) { h->frame = 0x9900001; }, "failed to read cped table addr"},
      {"buckets not a Smi", [](ParcaHeap* h) { h->buckets_word = 0x1001; }, "N buckets is not a smi"},
      {"buckets not a power of two", [](ParcaHeap* h) { h->buckets_word = Smi(3); },
       "N buckets is not a power of two"},
      {"not in the bucket", [](ParcaHeap* h) { h->heads.assign(4, -1); }, "ALS not found in map"},
      {"index not a Smi", [](ParcaHeap* h) { h->head_word = 0x1001; }, "entry index is not a smi"},
      {"another key", [](ParcaHeap* h) { h->entries[0].key = 0x4400001; }, "ALS not found in map"},
  };
  for (const Case& c : cases) {
    ParcaHeap h;
    c.spoil(&h);
    const MemoryImage image = h.Build();
    EXPECT_EQ(ReadParcaThread(Node24(), EM_X86_64, kTp, image).walk, c.walk) << c.name;
  }
}

TEST(ParcaWalk, TriesSixteenEntriesAndNoMore) {
  for (const int chain : {16, 17, 4096}) {
    ParcaHeap h;
    h.buckets = 4096;
    h.heads.assign(4096, -1);
    h.heads[h.hash & 4095] = 0;
    h.entries.clear();
    // `chain` other storages, then ours.
    for (int i = 0; i < chain; ++i) h.entries.push_back({0x4400001, 0, i + 1});
    h.entries.push_back({kAls, kWrapper + 1, -1});
    const MemoryImage image = h.Build();
    const Counting counting(image);
    const ParcaThread t = ReadParcaThread(Node24(), EM_X86_64, kTp, counting);
    // MAX_V8_HM_TRIES: ours is the 17th entry when 16 others come first.
    EXPECT_EQ(t.walk, chain < 16 ? "found" : "couldn't find ls after searching max buckets") << chain;
    // The current set (2), both isolates (6), the CPED, table and bucket
    // count (3), hash, handle and key (3), 2 per entry, the wrapper's 4.
    EXPECT_LE(counting.reads, 18u + 2u * 16u) << chain;
  }
}

TEST(ParcaWalk, ItsThirtyTwoBitArithmeticWrapsAsInItsEbpfCode) {
  // INT32_MIN buckets passes its power-of-two test (x & (x - 1) wraps to
  // 0), masks the hash with 0x7fffffff and puts the entries 8 * INT32_MIN
  // (wrapped: 0) after the buckets: a walk that ends, without undefined
  // behaviour (UBSan runs this).
  ParcaHeap h;
  h.buckets_word = Smi(INT32_MIN);
  const MemoryImage image = h.Build();
  EXPECT_EQ(ReadParcaThread(Node24(), EM_X86_64, kTp, image).walk, "ALS not found in map");
}

TEST(ParcaWalk, OffWhereItsLoadersSetNothingUp) {
  ParcaHeap h;
  h.native_set = kNativeSet;
  const MemoryImage image = h.Build();
  ParcaSetup s = Node24();
  s.has_als_data = false;
  const ParcaThread t = ReadParcaThread(s, EM_X86_64, kTp, image);
  EXPECT_EQ(t.walk, "off: the addon has no custom_labels_als_handle relocation");
  EXPECT_EQ(t.set, kNativeSet);
  s = Node24();
  s.v8_loaded = false;
  s.v8_error = "unable to read '_ZN2v88internal7Version6major_E'";
  EXPECT_EQ(ReadParcaThread(s, EM_X86_64, kTp, image).walk,
            "off: its V8 loader takes no file of this process (unable to read "
            "'_ZN2v88internal7Version6major_E')");
}

TEST(ParcaWalk, WithIsolateOffsetZeroItReadsWhereItsLoaderLeftIt) {
  // A failed isolate lookup leaves offset 0: the walk reads *(block + 0),
  // the TCB's self pointer, and a word of the TCB as the CPED.
  ParcaHeap h;
  const MemoryImage image = h.Build();
  ParcaSetup s = Node24();
  s.isolate_offset = 0;
  s.node_error = "failed to look up g_current_isolate: symbol not found";
  const ParcaThread t = ReadParcaThread(s, EM_X86_64, kTp, image);
  EXPECT_EQ(t.isolate, kTp);
  EXPECT_EQ(t.isolate_here, kIsolate);
  EXPECT_EQ(t.walk, "failed to get v8 CPED address");
}

TEST(ParcaWalk, OnAarch64TheCurrentSetIsReadThroughTheDtv) {
  ParcaHeap h;
  h.native_set = kNativeSet;
  h.frame = 0;
  MemoryImage image = h.Build();
  // tpidr_el0 -> the TCB, whose first word is the DTV; dtv[1] (at +16) the
  // main block, which here is kTp itself: the same words as on x86-64.
  const ParcaThread t = ReadParcaThread(Node24(), EM_AARCH64, kTp, image);
  EXPECT_TRUE(t.native_read);
  EXPECT_EQ(t.native_set, kNativeSet);
}

// The loaders, on stand-in executables built by CMake.
std::string FakeNode(const char* variant) {
  return std::string(CUSTOMLABELS_FAKE_NODE_DIR) + "/fake_node_" + variant;
}

ParcaSetup SetUpFor(const char* variant) {
  std::string error;
  const std::optional<ElfFile> addon = ElfFile::Open(CUSTOMLABELS_PROBE_MODULE, &error);
  const std::optional<ElfFile> node = ElfFile::Open(FakeNode(variant), &error);
  EXPECT_TRUE(addon && node) << error;
  MemoryImage descriptors;  // every TLS descriptor's argument reads as 0
  descriptors.AddFill(0, uint64_t{1} << 30, 0);
  return SetUpParcaFrom("/app/node_modules/customlabels/build/Release/customlabels.node", *addon,
                        0, "/usr/local/bin/node", &*node, descriptors);
}

TEST(ParcaSetup, Node24WithTheIsolateInDynsymGetsItsOffsets) {
  const ParcaSetup s = SetUpFor("24_dynsym");
  EXPECT_TRUE(s.addon_matches);
  EXPECT_TRUE(s.has_als_data);
  EXPECT_TRUE(s.v8_loaded) << s.v8_error;
  ASSERT_TRUE(s.version);
  EXPECT_EQ(s.version->text(), "24.21.0");
  EXPECT_EQ(s.cped_offset, 632u);
  EXPECT_EQ(s.wrapped_object_offset, 32u);
  EXPECT_EQ(s.node_error, "");
  EXPECT_EQ(s.isolate_table, ".dynsym");
  EXPECT_EQ(s.isolate_offset, s.isolate_offset_here);
  // x86-64: st_value - roundup(PT_TLS memsz, align), a negative offset.
  EXPECT_LT(s.isolate_offset, 0);
  EXPECT_TRUE(s.walks());
}

TEST(ParcaSetup, Node24WithTheIsolateOnlyInSymtabLeavesItsOffsetZero) {
  const ParcaSetup s = SetUpFor("24_symtab");
  EXPECT_EQ(s.node_error, "failed to look up g_current_isolate: symbol not found");
  EXPECT_EQ(s.isolate_offset, 0);
  EXPECT_EQ(s.isolate_table, ".symtab");
  EXPECT_LT(s.isolate_offset_here, 0);
  // The walk still runs (the fork only logs the failure), from offset 0.
  EXPECT_TRUE(s.walks());
}

TEST(ParcaSetup, Node26FindsTheIsolateInSymtabAndUsesItsOwnOffset) {
  const ParcaSetup s = SetUpFor("26_symtab");
  EXPECT_EQ(s.node_error, "");
  EXPECT_EQ(s.isolate_table, ".symtab");
  EXPECT_EQ(s.isolate_offset, s.isolate_offset_here);
  EXPECT_EQ(s.cped_offset, 640u);
}

TEST(ParcaSetup, Node20IsAMajorItDoesNotSupport) {
  const ParcaSetup s = SetUpFor("20_dynsym");
  EXPECT_EQ(s.node_error, "Unsupported Node major version: 20");
  EXPECT_EQ(s.cped_offset, 0u);
  EXPECT_EQ(s.isolate_offset, 0);
}

TEST(ParcaSetup, ItTakesTheAddonOnlyByItsFileName) {
  std::string error;
  const std::optional<ElfFile> addon = ElfFile::Open(CUSTOMLABELS_PROBE_MODULE, &error);
  ASSERT_TRUE(addon) << error;
  MemoryImage none;
  EXPECT_FALSE(SetUpParcaFrom("/app/libcustomlabels_wrapped.so", *addon, 0, "", nullptr, none).addon_matches);
  EXPECT_FALSE(SetUpParcaFrom("/app/customlabels-v8-abi137.node", *addon, 0, "", nullptr, none).addon_matches);
  // No Node.js mapping: its V8 loader takes nothing, and the walk stays off.
  const ParcaSetup s = SetUpParcaFrom("/app/customlabels.node", *addon, 0, "", nullptr, none);
  EXPECT_FALSE(s.v8_loaded);
  EXPECT_FALSE(s.walks());
}

TEST(ParcaLookup, ItsOffsetsPerMajorAreTheForks) {
  EXPECT_EQ(ParcaOffsetsFor(21), nullptr);
  EXPECT_EQ(ParcaOffsetsFor(22)->cped_offset, 576u);
  EXPECT_EQ(ParcaOffsetsFor(23)->wrapped_object_offset, 24u);
  EXPECT_EQ(ParcaOffsetsFor(24)->cped_offset, 632u);
  EXPECT_EQ(ParcaOffsetsFor(25)->cped_offset, 640u);
  EXPECT_EQ(ParcaOffsetsFor(26)->cped_offset, 640u);
  // Every known reader cites where its facts come from.
  for (const KnownReader& r : KnownReaders()) {
    EXPECT_FALSE(r.sources.empty()) << r.name;
    for (const SourceRef& s : r.sources) EXPECT_NE(std::string(s.where), "") << r.name;
  }
}

}  // namespace
}  // namespace customlabels::reader
