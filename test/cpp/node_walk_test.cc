// The hook-free Node.js walk (core/node_walk.h, run by the addon's layout
// probe and, through reader/node_walk.h, by the reader) over synthetic V8
// heaps: a discovery struct, the continuation data slot, an AsyncContextFrame
// (a JSMap) and its OrderedHashMap, our storage's handle and the store. Then
// what a hostile or torn target can publish: each must end the walk with a
// named status, within a bounded number of reads.
#include "core/node_walk.h"

#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "reader/memory_image.h"
#include "reader/node_walk.h"

namespace customlabels::reader {
namespace {

uint64_t Smi(int64_t v) { return static_cast<uint64_t>(v) << 32; }

// A V8 heap as Node.js lays it out on 64-bit Linux, with every word a test
// may want to spoil exposed as a field.
struct FakeHeap {
  static constexpr uint64_t kStruct = 0x10000, kSlot = 0x20000, kFrame = 0x30000, kTable = 0x40000,
                            kHandle = 0x50000, kAls = 0x60000, kOtherAls = 0x61000,
                            kWrapper = 0x70000;
  static constexpr uint64_t kLabelSet = 0xabc000, kRecord = 0xdef000, kUndefined = 0x90001;

  struct Entry {
    uint64_t key;
    uint64_t value;
    int64_t chain;
  };

  // The discovery struct.
  uint64_t cped_slot = kSlot;
  uint64_t als_handle = kHandle;
  int32_t hash = 5;
  uint8_t record_slot_offset = 40;
  uint64_t undefined = kUndefined;
  // The heap.
  uint64_t slot_value = kFrame + 1;
  uint64_t table_word = kTable + 1;
  uint64_t handle_value = kAls + 1;
  int64_t buckets = 2;
  std::vector<int64_t> heads{-1, -1};
  std::vector<Entry> entries;
  // Overrides of the table's words (raw, so a test can put a non-Smi there).
  uint64_t length_word = 0, elements_word = 0, deleted_word = 0, buckets_word = 0;
  bool raw_counts = false;
  bool wrapper_readable = true;

  // One store for our storage, in the bucket its hash picks.
  static FakeHeap WithOurStore() {
    FakeHeap h;
    h.entries.push_back({kAls + 1, kWrapper + 1, -1});
    h.heads[static_cast<size_t>(h.hash & 1)] = 0;
    return h;
  }

  MemoryImage Build() const {
    MemoryImage image;
    std::string s(32, '\0');
    std::memcpy(&s[0], &cped_slot, 8);
    std::memcpy(&s[8], &als_handle, 8);
    std::memcpy(&s[16], &hash, 4);
    s[20] = static_cast<char>(record_slot_offset);
    std::memcpy(&s[24], &undefined, 8);
    image.Add(kStruct, s);
    image.Add(kSlot, Words({slot_value}));
    image.Add(kFrame, Words({0x1001, 0x1001, 0x1001, table_word}));
    const int64_t capacity = buckets * 2;
    std::vector<uint64_t> table{0x2001};
    if (raw_counts) {
      table.insert(table.end(), {length_word, elements_word, deleted_word, buckets_word});
    } else {
      table.push_back(Smi(3 + buckets + 3 * capacity));
      table.push_back(Smi(static_cast<int64_t>(entries.size())));
      table.push_back(Smi(0));
      table.push_back(Smi(buckets));
    }
    for (int64_t head : heads) table.push_back(Smi(head));
    for (const Entry& e : entries) table.insert(table.end(), {e.key, e.value, Smi(e.chain)});
    for (int64_t i = static_cast<int64_t>(entries.size()); i < capacity; ++i) {
      table.insert(table.end(), {kUndefined, kUndefined, Smi(-1)});
    }
    image.Add(kTable, Words(table));
    image.Add(kHandle, Words({handle_value}));
    if (wrapper_readable)
      image.Add(kWrapper, Words({0x3001, 0x3001, 0x3001, 0, kLabelSet, kRecord}));
    return image;
  }

  static std::string Words(const std::vector<uint64_t>& words) {
    std::string out(words.size() * 8, '\0');
    std::memcpy(&out[0], words.data(), out.size());
    return out;
  }
};

class CountingImage final : public MemorySource {
 public:
  explicit CountingImage(MemoryImage image) : image_(std::move(image)) {}
  bool Read(uint64_t address, void* out, size_t size) const override {
    ++reads;
    return image_.Read(address, out, size);
  }
  mutable uint64_t reads = 0;

 private:
  MemoryImage image_;
};

NodeWalk Walk(const FakeHeap& h) {
  const MemoryImage image = h.Build();
  EXPECT_TRUE(image.ok());
  return WalkNode(image, FakeHeap::kStruct);
}

TEST(NodeWalk, FindsTheStoreInItsBucket) {
  const NodeWalk w = Walk(FakeHeap::WithOurStore());
  EXPECT_EQ(w.status, "found");
  EXPECT_EQ(w.frame, FakeHeap::kFrame + 1);
  EXPECT_EQ(w.label_set, FakeHeap::kLabelSet);
  EXPECT_EQ(w.record, FakeHeap::kRecord);
  EXPECT_EQ(w.words.cped_slot, FakeHeap::kSlot);
  EXPECT_EQ(w.words.als_identity_hash, 5);
  EXPECT_EQ(w.words.record_slot_offset, 40);
  EXPECT_EQ(w.words.undefined_value, FakeHeap::kUndefined);
}

TEST(NodeWalk, FollowsTheBucketsChainPastOtherStorages) {
  FakeHeap h;
  h.entries = {{FakeHeap::kAls + 1, FakeHeap::kWrapper + 1, -1},
               {FakeHeap::kOtherAls + 1, 0x5551, 0}};
  h.heads[1] = 1;
  const NodeWalk w = Walk(h);
  EXPECT_EQ(w.status, "found");
  EXPECT_EQ(w.label_set, FakeHeap::kLabelSet);
}

TEST(NodeWalk, UsesOnlyTheBucketTheHashPicks) {
  FakeHeap h = FakeHeap::WithOurStore();
  h.hash = 4;  // bucket 0; the store is chained from bucket 1
  EXPECT_EQ(Walk(h).status, "not-in-frame");
}

TEST(NodeWalk, ReadsNothingPastAClosedGate) {
  FakeHeap h = FakeHeap::WithOurStore();
  h.cped_slot = 0;
  h.record_slot_offset = 3;  // not looked at either
  CountingImage image(h.Build());
  EXPECT_EQ(WalkNode(image, FakeHeap::kStruct).status, "gate-closed");
  EXPECT_EQ(image.reads, 1u);
}

TEST(NodeWalk, NamesEachWayOfHavingNoLabels) {
  FakeHeap no_frame = FakeHeap::WithOurStore();
  no_frame.slot_value = FakeHeap::kUndefined;
  EXPECT_EQ(Walk(no_frame).status, "no-frame");

  FakeHeap detached = FakeHeap::WithOurStore();
  detached.entries[0].value = FakeHeap::kUndefined;
  EXPECT_EQ(Walk(detached).status, "detached");

  FakeHeap other = FakeHeap::WithOurStore();
  other.entries[0].key = FakeHeap::kOtherAls + 1;
  EXPECT_EQ(Walk(other).status, "not-in-frame");

  FakeHeap empty;
  EXPECT_EQ(Walk(empty).status, "not-in-frame");
}

TEST(NodeWalk, ACyclicChainEndsWithinTheTablesEntries) {
  FakeHeap h;
  h.buckets = 4;
  h.heads.assign(4, -1);
  // 8 other storages (the table's capacity), each chained to the next, the
  // last back to the first.
  for (int64_t i = 0; i < 8; ++i) {
    h.entries.push_back({FakeHeap::kOtherAls + 1 + 16 * static_cast<uint64_t>(i), 0x5551, (i + 1) % 8});
  }
  h.heads[1] = 0;
  CountingImage image(h.Build());
  EXPECT_EQ(WalkNode(image, FakeHeap::kStruct).status, "not-in-frame");
  // The struct, the slot, the table word, length, 3 counts, the handle, the
  // bucket, then key and chain per entry, each entry once.
  EXPECT_LE(image.reads, 9u + 2u * 8u);
}

TEST(NodeWalk, AChainLongerThanAnyFramesStopsAfter32Entries) {
  for (const bool cyclic : {false, true}) {
    FakeHeap h;
    h.buckets = 1024;
    h.heads.assign(1024, -1);
    // 2048 other storages, each chained to the next; the last ends the chain
    // or goes back to the first. Followed to its end: 2 x 2048 reads.
    for (int64_t i = 0; i < 2048; ++i) {
      const int64_t next = i + 1 < 2048 ? i + 1 : cyclic ? 0 : -1;
      h.entries.push_back({FakeHeap::kOtherAls + 1 + 16 * static_cast<uint64_t>(i), 0x5551, next});
    }
    h.heads[5] = 0;
    CountingImage image(h.Build());
    EXPECT_EQ(WalkNode(image, FakeHeap::kStruct).status,
              "malformed: a bucket's chain is longer than 32 entries");
    EXPECT_LE(image.reads, 9u + 2u * 32u);
  }
}

struct Hostile {
  const char* name;
  void (*spoil)(FakeHeap*);
  const char* status;
};

void PrintTo(const Hostile& h, std::ostream* os) { *os << h.name; }

class HostileHeap : public ::testing::TestWithParam<Hostile> {};

TEST_P(HostileHeap, EndsTheWalkWithItsStatus) {
  FakeHeap h = FakeHeap::WithOurStore();
  GetParam().spoil(&h);
  CountingImage image(h.Build());
  EXPECT_EQ(WalkNode(image, FakeHeap::kStruct).status, GetParam().status);
  EXPECT_LE(image.reads, 16u);
}

void Counts(FakeHeap* h, uint64_t length, uint64_t elements, uint64_t deleted, uint64_t buckets) {
  h->raw_counts = true;
  h->length_word = length;
  h->elements_word = elements;
  h->deleted_word = deleted;
  h->buckets_word = buckets;
}

INSTANTIATE_TEST_SUITE_P(
    NodeWalk, HostileHeap,
    ::testing::Values(
        Hostile{"MisalignedRecordSlot", [](FakeHeap* h) { h->record_slot_offset = 41; },
                "malformed: record_slot_offset 41"},
        Hostile{"RecordSlotInTheObjectHeader", [](FakeHeap* h) { h->record_slot_offset = 24; },
                "malformed: record_slot_offset 24"},
        Hostile{"UnreadableSlot", [](FakeHeap* h) { h->cped_slot = 0xdead0000; },
                "unreadable: the continuation data slot"},
        Hostile{"FrameIsASmi", [](FakeHeap* h) { h->slot_value = Smi(7); },
                "malformed: the continuation data is not an object"},
        Hostile{"FrameOutsideTheHeap", [](FakeHeap* h) { h->slot_value = 0xdead0001; },
                "unreadable: the frame's table"},
        Hostile{"TableIsASmi", [](FakeHeap* h) { h->table_word = Smi(1); },
                "malformed: the frame's table is not an object"},
        Hostile{"TableOutsideTheHeap", [](FakeHeap* h) { h->table_word = 0xdead0001; },
                "unreadable: the table's length"},
        Hostile{"LengthNotASmi", [](FakeHeap* h) { Counts(h, 0x4001, Smi(1), Smi(0), Smi(2)); },
                "malformed: the table's length is not a small integer of at least 3"},
        Hostile{"ElementsForwarded",
                [](FakeHeap* h) { Counts(h, Smi(17), 0x4001, Smi(0), Smi(2)); },
                "malformed: the table's counts are not small integers"},
        Hostile{"ZeroBuckets", [](FakeHeap* h) { Counts(h, Smi(17), Smi(1), Smi(0), Smi(0)); },
                "malformed: the bucket count is not a power of two up to 2^16"},
        Hostile{"ThreeBuckets", [](FakeHeap* h) { Counts(h, Smi(17), Smi(1), Smi(0), Smi(3)); },
                "malformed: the bucket count is not a power of two up to 2^16"},
        Hostile{"HugeBuckets",
                [](FakeHeap* h) { Counts(h, Smi(INT32_MAX), Smi(1), Smi(0), Smi(1 << 30)); },
                "malformed: the bucket count is not a power of two up to 2^16"},
        Hostile{"NegativeBuckets", [](FakeHeap* h) { Counts(h, Smi(17), Smi(1), Smi(0), Smi(-2)); },
                "malformed: the bucket count is not a power of two up to 2^16"},
        Hostile{"TooManyElements", [](FakeHeap* h) { Counts(h, Smi(17), Smi(4), Smi(1), Smi(2)); },
                "malformed: the element counts are out of range"},
        Hostile{"NegativeDeleted", [](FakeHeap* h) { Counts(h, Smi(17), Smi(1), Smi(-1), Smi(2)); },
                "malformed: the element counts are out of range"},
        Hostile{"ShortTable", [](FakeHeap* h) { Counts(h, Smi(16), Smi(1), Smi(0), Smi(2)); },
                "malformed: the table is shorter than its counts say"},
        Hostile{"UnreadableHandle", [](FakeHeap* h) { h->als_handle = 0xdead0000; },
                "unreadable: the storage's handle"},
        Hostile{"ChainOutOfRange", [](FakeHeap* h) { h->heads[1] = 1; }, "not-in-frame"},
        Hostile{"StoreIsASmi", [](FakeHeap* h) { h->entries[0].value = Smi(9); },
                "malformed: the store is not an object"},
        Hostile{"StoreOutsideTheHeap", [](FakeHeap* h) { h->wrapper_readable = false; },
                "unreadable: the store's fields"}),
    [](const ::testing::TestParamInfo<Hostile>& p) { return std::string(p.param.name); });

TEST(NodeWalk, AnUnreadableStructIsNamedWithItsAddress) {
  const MemoryImage empty;
  EXPECT_EQ(WalkNode(empty, 0x1234).status, "unreadable: otel_thread_ctx_nodejs_v1 at 0x1234");
}

// The addon's own probe passes the layout it derived from V8; a layout the
// walk cannot follow is refused rather than guessed at.
TEST(NodeWalk, TheCoreRefusesALayoutItCannotWalk) {
  class Nothing final : public core::WordSource {
   public:
    bool ReadWord(uint64_t, uint64_t*) const override { return false; }
  };
  core::NodeDiscovery d;
  d.cped_slot = 0x1000;
  core::NodeLayout layout;
  layout.tagged_size = 4;  // pointer compression
  const core::WalkResult r = core::WalkNodeContext(Nothing(), d, layout);
  EXPECT_EQ(r.status, core::WalkStatus::kMalformed);
  EXPECT_STREQ(r.what, "tagged_size is not 8");
}

}  // namespace
}  // namespace customlabels::reader
