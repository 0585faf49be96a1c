// The reader's decoder on memory images: the shared spec cases (the same
// table core::ReadLabelSet is tested with), then everything a hostile target
// can publish, with the limits that keep every read bounded.
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>

#include "label_set_cases.h"
#include "reader/abi_reader.h"
#include "reader/label_set_decoder.h"
#include "reader/label_views.h"
#include "reader/memory_image.h"

namespace customlabels::reader {
namespace {

using customlabels::testing::CaseMemory;
using customlabels::testing::LabelSetCase;
using customlabels::testing::Pairs;

Pairs PairsOf(const std::vector<Label>& labels) {
  Pairs out;
  for (const Label& l : labels) out.emplace_back(l.key, l.value);
  return out;
}

class DecodeCase : public ::testing::TestWithParam<LabelSetCase> {};

TEST_P(DecodeCase, SeesWhatTheSpecSays) {
  CaseMemory memory;
  const custom_labels_labelset_t* set = GetParam().build(&memory);
  MemoryImage image;
  for (const CaseMemory::Region& r : memory.regions()) {
    image.AddView(reinterpret_cast<uintptr_t>(r.data), r.data, r.size);
  }
  ASSERT_TRUE(image.ok());
  const DecodedSet d = DecodeLabelSet(image, reinterpret_cast<uintptr_t>(set), ReadLimits{});
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_EQ(d.has_set(), set != nullptr);
  EXPECT_EQ(PairsOf(AbiView(d)), GetParam().expected);
  EXPECT_EQ(d.problems.size(), GetParam().problems);
  for (const std::string& p : d.problems) {
    EXPECT_NE(p.find("value.buf is NULL, which the ABI forbids; ignored"), std::string::npos) << p;
  }
  EXPECT_FALSE(TruncationOf(d).any());
}

INSTANTIATE_TEST_SUITE_P(Cases, DecodeCase,
                         ::testing::ValuesIn(customlabels::testing::LabelSetCases()),
                         customlabels::testing::CaseName());

// A MemorySource that counts what was asked of it, to prove reads bounded.
class Counting final : public MemorySource {
 public:
  explicit Counting(const MemorySource& inner) : inner_(inner) {}
  bool Read(uint64_t address, void* out, size_t size) const override {
    ++reads;
    bytes += size;
    largest = std::max<uint64_t>(largest, size);
    return inner_.Read(address, out, size);
  }
  mutable uint64_t reads = 0, bytes = 0, largest = 0;

 private:
  const MemorySource& inner_;
};

// Builds raw images: words at addresses.
struct Image {
  MemoryImage memory;
  void Words(uint64_t address, std::vector<uint64_t> words) {
    std::string bytes(words.size() * 8, '\0');
    std::memcpy(bytes.data(), words.data(), bytes.size());
    memory.Add(address, std::move(bytes));
  }
  void Text(uint64_t address, const std::string& s) { memory.Add(address, s); }
  // A set header at `at` and its labels {key.len, key.buf, value.len, value.buf} at `storage`.
  void Set(uint64_t at, uint64_t storage, uint64_t count,
           const std::vector<std::array<uint64_t, 4>>& labels) {
    Words(at, {storage, count, count});
    std::vector<uint64_t> words;
    for (const auto& l : labels) words.insert(words.end(), l.begin(), l.end());
    if (!words.empty()) Words(storage, words);
  }
};

constexpr uint64_t kSet = 0x10000, kStorage = 0x20000, kBytes = 0x30000;

TEST(Decode, NoSetIsNotAnError) {
  MemoryImage empty;
  const DecodedSet d = DecodeLabelSet(empty, 0, ReadLimits{});
  EXPECT_TRUE(d.ok());
  EXPECT_FALSE(d.has_set());
  EXPECT_TRUE(d.slots.empty());
}

TEST(Decode, UnreadableHeaderIsAnError) {
  Image img;
  img.Words(kSet, {kStorage, 1});  // 16 of the 24 header bytes
  const DecodedSet d = DecodeLabelSet(img.memory, kSet, ReadLimits{});
  EXPECT_EQ(d.error, "cannot read the label set at 0x10000");
  EXPECT_TRUE(d.has_set());
  const DecodedSet wraps = DecodeLabelSet(img.memory, ~uint64_t{0} - 7, ReadLimits{});
  EXPECT_EQ(wraps.error, "cannot read the label set at 0xfffffffffffffff8");
}

TEST(Decode, MisalignedSetPointerIsReadAndReported) {
  Image img;
  img.Text(kBytes, "m1");
  std::string header(3, '\0');
  for (uint64_t w : {kStorage, uint64_t{1}, uint64_t{1}})
    header.append(reinterpret_cast<const char*>(&w), 8);
  img.memory.Add(kSet, header);
  img.Words(kStorage, {1, kBytes, 1, kBytes + 1});
  const DecodedSet d = DecodeLabelSet(img.memory, kSet + 3, ReadLimits{});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(PairsOf(AbiView(d)), (Pairs{{"m", "1"}}));
  ASSERT_EQ(d.problems.size(), 1u);
  EXPECT_EQ(d.problems[0],
            "set pointer 0x10003 is misaligned (custom_labels_labelset_t is 8-byte aligned); "
            "read anyway");
}

TEST(Decode, StorageErrors) {
  Image img;
  img.Words(kSet, {0, 2, 2});
  EXPECT_EQ(DecodeLabelSet(img.memory, kSet, ReadLimits{}).error,
            "label storage is NULL but count is 2");
  img.Words(kSet + 0x100, {kStorage, 3, 3});  // nothing at kStorage
  EXPECT_EQ(DecodeLabelSet(img.memory, kSet + 0x100, ReadLimits{}).error,
            "cannot read label storage at 0x20000 (3 labels)");
  img.Words(kSet + 0x200, {0xfffffffffffffff0, 4, 4});
  EXPECT_EQ(DecodeLabelSet(img.memory, kSet + 0x200, ReadLimits{}).error,
            "label storage at 0xfffffffffffffff0 with 4 labels runs past the end of the address "
            "space");
  // 24 bytes below the end: not even one label fits (the arithmetic must not wrap).
  img.Words(kSet + 0x280, {0xffffffffffffffe8, 1, 1});
  EXPECT_EQ(DecodeLabelSet(img.memory, kSet + 0x280, ReadLimits{}).error,
            "label storage at 0xffffffffffffffe8 with 1 labels runs past the end of the address "
            "space");
  img.memory.AddFill(0xffffffffffffffe0, 32, 0);  // exactly one label fits, and is read
  img.Words(kSet + 0x2c0, {0xffffffffffffffe0, 1, 1});
  const DecodedSet last = DecodeLabelSet(img.memory, kSet + 0x2c0, ReadLimits{});
  EXPECT_TRUE(last.ok()) << last.error;
  EXPECT_EQ(last.slots.size(), 1u);
  img.Words(kSet + 0x300, {kStorage, 0, 0});  // count 0: storage never read
  const DecodedSet empty = DecodeLabelSet(img.memory, kSet + 0x300, ReadLimits{});
  EXPECT_TRUE(empty.ok());
  EXPECT_TRUE(empty.slots.empty());
}

TEST(Decode, HugeCountsReadOnlyMaxLabelsAndSayTheCountCannotBeRight) {
  for (uint64_t count : {uint64_t{1} << 63, (uint64_t{1} << 59) + 2, ~uint64_t{0}}) {
    Image img;
    img.Text(kBytes, "kv");
    std::vector<std::array<uint64_t, 4>> labels;
    for (int i = 0; i < 3; ++i) labels.push_back({1, kBytes, 1, kBytes + 1});
    img.Set(kSet, kStorage, count, labels);  // 3 readable labels, then nothing
    Counting counting(img.memory);
    const DecodedSet d = DecodeLabelSet(counting, kSet, ReadLimits{});
    ASSERT_TRUE(d.ok()) << count;
    EXPECT_EQ(d.count, count);
    EXPECT_EQ(d.slots.size(), 3u);
    EXPECT_EQ(d.labels_cut, kLimitNone);  // stopped by unreadable storage, not a limit
    ASSERT_EQ(d.problems.size(), 2u);
    EXPECT_EQ(d.problems[0], "count " + std::to_string(count) +
                                 " cannot be right: that many labels of 32 bytes do not fit "
                                 "above 0x20000");
    EXPECT_EQ(d.problems[1], "label storage is unreadable from label 3 at 0x20060; 3 of " +
                                 std::to_string(count) + " labels read");
    // One chunk, then label by label up to the hole: never count * 32.
    EXPECT_LE(counting.largest, DecodedSet::kChunkLabels * 32);
    const Truncation t = TruncationOf(d);
    EXPECT_TRUE(t.labels_cut());
    EXPECT_EQ(t.kept, 3u);
  }
}

TEST(Decode, MillionsOfLabelsStopAtMaxLabels) {
  Image img;
  const uint64_t count = uint64_t{1} << 21;
  img.Words(kSet, {kStorage, count, count});
  img.memory.AddFill(kStorage, count * 32, 0);  // every key.buf NULL
  Counting counting(img.memory);
  ReadLimits limits;
  const DecodedSet d = DecodeLabelSet(counting, kSet, limits);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.slots.size(), limits.max_labels);
  EXPECT_EQ(d.labels_cut, kLimitLabels);
  EXPECT_TRUE(AbiView(d).empty());
  EXPECT_EQ(counting.bytes, 24 + limits.max_labels * 32);
  limits.max_labels = 5;
  EXPECT_EQ(DecodeLabelSet(img.memory, kSet, limits).slots.size(), 5u);
}

TEST(Decode, LengthsUpTo2To64AreCutByTheKeyAndValueLimits) {
  Image img;
  img.memory.AddFill(kBytes, 1 << 20, 'x');
  img.Set(kSet, kStorage, 2,
          {{1, kBytes, ~uint64_t{0}, kBytes}, {~uint64_t{0}, kBytes, 1, kBytes}});
  Counting counting(img.memory);
  const ReadLimits limits;
  const DecodedSet d = DecodeLabelSet(counting, kSet, limits);
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d.slots.size(), 2u);
  EXPECT_EQ(d.slots[0].value.size(), limits.max_value_bytes);
  EXPECT_EQ(d.slots[0].value_length, ~uint64_t{0});
  EXPECT_EQ(d.slots[0].value_cut, kLimitValueBytes);
  EXPECT_EQ(d.slots[1].key.size(), limits.max_key_bytes);
  EXPECT_EQ(d.slots[1].key_cut, kLimitKeyBytes);
  EXPECT_EQ(counting.largest, limits.max_value_bytes);
  const Truncation t = TruncationOf(d);
  EXPECT_FALSE(t.labels_cut());
  ASSERT_EQ(t.keys.size(), 1u);
  EXPECT_EQ(t.keys[0].index, 1u);
  EXPECT_EQ(t.keys[0].kept, limits.max_key_bytes);
  EXPECT_EQ(t.keys[0].length, ~uint64_t{0});
  ASSERT_EQ(t.values.size(), 1u);
  EXPECT_EQ(t.values[0].key, "x");
  EXPECT_EQ(t.values[0].limit, kLimitValueBytes);
}

TEST(Decode, GigabyteKeysAndValuesCostOnlyWhatTheLimitsAllow) {
  Image img;
  img.memory.AddFill(kBytes, uint64_t{1} << 30, 'K');            // 1 GiB key
  img.memory.AddFill(kBytes + (2ull << 30), 256ull << 20, 'V');  // 256 MiB value
  img.Set(kSet, kStorage, 1, {{uint64_t{1} << 30, kBytes, 256ull << 20, kBytes + (2ull << 30)}});
  Counting counting(img.memory);
  const DecodedSet d = DecodeLabelSet(counting, kSet, ReadLimits{});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.slots[0].key, std::string(1024, 'K'));
  EXPECT_EQ(d.slots[0].value, std::string(64 * 1024, 'V'));
  EXPECT_EQ(counting.bytes, 24u + 32u + 1024u + 64u * 1024u);
}

TEST(Decode, TheSetBudgetCutsTheLabelThatReachesItAndStopsThere) {
  // 40 labels "s00".."s39" of 32 KiB: 31 fit in 1 MiB, the 32nd is cut.
  Image img;
  std::vector<std::array<uint64_t, 4>> labels;
  for (uint64_t i = 0; i < 40; ++i) {
    char key[4];
    std::snprintf(key, sizeof(key), "s%02u", static_cast<unsigned>(i));
    img.Text(kBytes + i * 4, key);
    img.memory.AddFill(0x100000 + i * 0x10000, 32 << 10, static_cast<unsigned char>('0' + i % 10));
    labels.push_back({3, kBytes + i * 4, 32 << 10, 0x100000 + i * 0x10000});
  }
  img.Set(kSet, kStorage, 40, labels);
  const DecodedSet d = DecodeLabelSet(img.memory, kSet, ReadLimits{});
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d.slots.size(), 32u);
  EXPECT_EQ(d.labels_cut, kLimitSetBytes);
  const uint64_t used = 31 * (3 + (32 << 10)) + 3;
  EXPECT_EQ(d.slots[31].value.size(), (1u << 20) - used);
  EXPECT_EQ(d.slots[31].value_cut, kLimitSetBytes);
  EXPECT_EQ(d.slots[30].value_cut, kLimitNone);
  const Truncation t = TruncationOf(d);
  EXPECT_EQ(t.count, 40u);
  EXPECT_EQ(t.kept, 32u);
  ASSERT_EQ(t.values.size(), 1u);
  EXPECT_EQ(t.values[0].kept, 32672u);
  // Exactly the budget: nothing is cut.
  ReadLimits exact;
  exact.max_set_bytes = 40 * (3 + (32 << 10));
  const DecodedSet all = DecodeLabelSet(img.memory, kSet, exact);
  EXPECT_EQ(all.slots.size(), 40u);
  EXPECT_FALSE(TruncationOf(all).any());
  // A key longer than what is left is cut by the set budget, not the key limit.
  ReadLimits small;
  small.max_set_bytes = 2;
  const DecodedSet cut = DecodeLabelSet(img.memory, kSet, small);
  ASSERT_EQ(cut.slots.size(), 1u);
  EXPECT_EQ(cut.slots[0].key, "s0");
  EXPECT_EQ(cut.slots[0].key_cut, kLimitSetBytes);
  EXPECT_EQ(cut.slots[0].value_cut, kLimitSetBytes);
}

TEST(Decode, UnreadableKeysAndValuesAreIgnoredWithANote) {
  Image img;
  img.Text(kBytes, "uvw");
  img.Set(kSet, kStorage, 3,
          {{1, kBytes, 4, 0x900000}, {5, 0x900000, 1, kBytes}, {1, kBytes + 2, 1, kBytes + 1}});
  const DecodedSet d = DecodeLabelSet(img.memory, kSet, ReadLimits{});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(PairsOf(AbiView(d)), (Pairs{{"w", "v"}}));
  ASSERT_EQ(d.problems.size(), 2u);
  EXPECT_EQ(d.problems[0],
            "label 0 (key \"u\"): cannot read its value (4 bytes at 0x900000); ignored");
  EXPECT_EQ(d.problems[1], "label 1: cannot read its key (5 bytes at 0x900000); ignored");
}

TEST(Decode, ProblemsAreCapped) {
  Image img;
  img.Text(kBytes, "k");
  std::vector<std::array<uint64_t, 4>> labels(100, {1, kBytes, 0, 0});
  img.Set(kSet, kStorage, 100, labels);
  const DecodedSet d = DecodeLabelSet(img.memory, kSet, ReadLimits{});
  EXPECT_EQ(d.problems.size(), DecodedSet::kMaxProblems);
  EXPECT_EQ(d.more_problems, 100 - DecodedSet::kMaxProblems);
  EXPECT_TRUE(AbiView(d).empty());
}

TEST(Decode, KeysCutByTheLimitCompareByKeptBytesAndLength) {
  Image img;
  img.memory.AddFill(kBytes, 4096, 'k');
  img.Text(0x50000, "123");
  img.Set(kSet, kStorage, 3,
          {{2000, kBytes, 1, 0x50000}, {2000, kBytes, 1, 0x50001}, {3000, kBytes, 1, 0x50002}});
  const DecodedSet d = DecodeLabelSet(img.memory, kSet, ReadLimits{});
  const std::vector<Label> view = AbiView(d);
  ASSERT_EQ(view.size(), 2u);  // the second is a duplicate of the first
  EXPECT_EQ(view[0].value, "1");
  EXPECT_EQ(view[1].value, "3");
  EXPECT_EQ(view[1].key_length, 3000u);
}

// Memory that changes between any two reads (a set rewritten while it is
// read): every read succeeds with fresh bytes. The decoder reads each word
// once, so whatever it sees, the result stays within the limits.
class Churning final : public MemorySource {
 public:
  bool Read(uint64_t, void* out, size_t size) const override {
    auto* bytes = static_cast<unsigned char*>(out);
    for (size_t i = 0; i < size; ++i) {
      state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
      // Mostly small numbers and addresses, sometimes anything.
      const uint64_t r = state_ >> 33;
      bytes[i] = static_cast<unsigned char>(i % 8 < 2 || r % 5 == 0 ? r : 0);
    }
    reads_ += 1;
    return true;
  }
  mutable uint64_t state_ = 1, reads_ = 0;
};

TEST(Decode, AMemoryThatChangesOnEveryReadStillGivesABoundedResult) {
  ReadLimits limits;
  limits.max_labels = 64;
  limits.max_set_bytes = 4096;
  for (int round = 0; round < 200; ++round) {
    Churning memory;
    memory.state_ = static_cast<uint64_t>(round) + 1;
    const DecodedSet d = DecodeLabelSet(memory, 0x1000, limits);
    ASSERT_TRUE(d.ok()) << d.error;
    EXPECT_LE(d.slots.size(), limits.max_labels);
    uint64_t kept = 0;
    for (const Slot& s : d.slots) kept += s.key.size() + s.value.size();
    EXPECT_LE(kept, limits.max_set_bytes);
    EXPECT_LE(memory.reads_, 1 + 1 + 2 * limits.max_labels);  // header, storage, strings
  }
}

// ReadCurrentSet: the TLS slot, then the set, from an image.
TEST(ReadCurrentSet, StaticTlsSlotAtThreadPointerPlusArgument) {
  Image img;
  img.Text(kBytes, "ab");
  img.Set(kSet, kStorage, 1, {{1, kBytes, 1, kBytes + 1}});
  AbiTarget t;
  t.machine = EM_X86_64;
  t.current_set.static_tls = true;
  t.current_set.argument = static_cast<uint64_t>(-64);
  const uint64_t tp = 0x7000040;
  img.Words(tp - 64, {kSet});
  const ThreadRead r = ReadCurrentSet(t, tp, img.memory, ReadLimits{});
  EXPECT_EQ(r.slot_address, tp - 64);
  ASSERT_TRUE(r.set.ok()) << r.set.error;
  EXPECT_EQ(PairsOf(AbiView(r.set)), (Pairs{{"a", "b"}}));
  const ThreadRead bad = ReadCurrentSet(t, 0x9000000, img.memory, ReadLimits{});
  EXPECT_EQ(bad.set.error, "cannot read custom_labels_current_set at 0x8ffffc0");
  EXPECT_FALSE(bad.set.has_set());
}

TEST(ReadCurrentSet, DynamicTlsThroughTheDtv) {
  Image img;
  img.Text(kBytes, "dv");
  img.Set(kSet, kStorage, 1, {{1, kBytes, 1, kBytes + 1}});
  AbiTarget t;
  t.machine = EM_X86_64;
  t.current_set.dyn_module = 2;
  t.current_set.dyn_offset = 0x10;
  const uint64_t tp = 0x700000, dtv = 0x800010, block = 0x900000;
  img.Words(tp + 8, {dtv});
  img.Words(dtv - 16, {4, 0, 0, 0, 0, 0, block, 0});  // length 4; dtv[2] = block
  img.Words(block + 0x10, {kSet});
  const ThreadRead r = ReadCurrentSet(t, tp, img.memory, ReadLimits{});
  EXPECT_EQ(r.slot_address, block + 0x10);
  EXPECT_EQ(PairsOf(AbiView(r.set)), (Pairs{{"d", "v"}}));
  // Module beyond the DTV's length: the block was never allocated, no labels.
  t.current_set.dyn_module = 5;
  const ThreadRead none = ReadCurrentSet(t, tp, img.memory, ReadLimits{});
  EXPECT_TRUE(none.set.ok());
  EXPECT_FALSE(none.set.has_set());
  // No DTV at all.
  EXPECT_EQ(ReadCurrentSet(t, 0x100, img.memory, ReadLimits{}).set.error,
            "cannot read the thread's DTV at 0x108");
}

TEST(MemoryImage, RegionsReadsAndRefusals) {
  MemoryImage m;
  m.Add(100, "abc");
  m.Add(103, "de");  // touches: reads may span both
  m.AddFill(200, 10, 'z');
  ASSERT_TRUE(m.ok());
  char buf[8] = {};
  ASSERT_TRUE(m.Read(101, buf, 4));
  EXPECT_EQ(std::string(buf, 4), "bcde");
  EXPECT_FALSE(m.Read(101, buf, 5));  // runs past 104
  EXPECT_FALSE(m.Read(99, buf, 2));
  ASSERT_TRUE(m.Read(205, buf, 5));
  EXPECT_EQ(std::string(buf, 5), "zzzzz");
  EXPECT_TRUE(m.Read(0, buf, 0));
  m.Add(102, "x");  // overlaps
  EXPECT_FALSE(m.ok());
  MemoryImage top;
  top.AddFill(~uint64_t{0} - 3, 4, 't');
  EXPECT_TRUE(top.ok());
  EXPECT_TRUE(top.Read(~uint64_t{0} - 3, buf, 4));
  EXPECT_FALSE(top.Read(~uint64_t{0} - 3, buf, 5));
  top.AddFill(~uint64_t{0}, 2, 'w');  // would wrap
  EXPECT_FALSE(top.ok());
}

TEST(ProcessMemory, ReadsThisProcessAndRefusesWhatIsNotMapped) {
  const std::string here = "bytes of this process";
  const ProcessMemory self(getpid());
  std::string out(here.size(), '\0');
  ASSERT_TRUE(self.Read(reinterpret_cast<uintptr_t>(here.data()), out.data(), out.size()));
  EXPECT_EQ(out, here);
  EXPECT_FALSE(self.Read(0x10, out.data(), 4));
  EXPECT_FALSE(self.Read(~uint64_t{0} - 1, out.data(), 4));
}

}  // namespace
}  // namespace customlabels::reader
