// OTEP 4947 thread context records: the record builder, the attribute key
// map, and records written by BuildFromScratch next to their label sets.
// Records are checked byte by byte against the OTEP's layout, not through a
// decoder of ours.
#include <gtest/gtest.h>

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "core/attribute_key_map.h"
#include "core/scratch_build.h"
#include "core/thread_context_record.h"
#include "scratch_test_util.h"
#include "test_util.h"

namespace customlabels::core {
namespace {

using testing::AlignedBytes;
using testing::AskForRecords;
using testing::EncodeScratch;
using testing::Labels;
using testing::LocalKeys;
using testing::Pairs;
using testing::ReadResults;
using testing::Results;

std::vector<uint8_t> Bytes(const otel_thread_ctx_record_t* r) {
  const auto* p = reinterpret_cast<const uint8_t*>(r);
  uint16_t attrs = 0;
  std::memcpy(&attrs, p + 26, 2);
  return {p, p + 28 + attrs};
}

TraceIds Ids(uint8_t first, uint8_t flags) {
  TraceIds ids;
  for (size_t i = 0; i < 16; ++i) ids.trace_id[i] = static_cast<uint8_t>(first + i);
  for (size_t i = 0; i < 8; ++i) ids.span_id[i] = static_cast<uint8_t>(0xa0 + i);
  ids.trace_flags = flags;
  return ids;
}

// {index, value} entries as the OTEP lays them out.
std::vector<uint8_t> Attrs(const std::vector<std::pair<uint8_t, std::string>>& entries) {
  std::vector<uint8_t> out;
  for (const auto& [index, value] : entries) {
    out.push_back(index);
    out.push_back(static_cast<uint8_t>(value.size()));
    out.insert(out.end(), value.begin(), value.end());
  }
  return out;
}

std::vector<uint8_t> Header(const TraceIds& ids, uint8_t flags, size_t attrs) {
  std::vector<uint8_t> out(ids.trace_id.begin(), ids.trace_id.end());
  out.insert(out.end(), ids.span_id.begin(), ids.span_id.end());
  out.push_back(1);  // valid
  out.push_back(flags);
  out.push_back(static_cast<uint8_t>(attrs & 0xff));  // little-endian u16
  out.push_back(static_cast<uint8_t>(attrs >> 8));
  return out;
}

std::vector<uint8_t> Concat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(ThreadContextRecord, WritesTheOtepLayoutWithValidSetAndEntriesInOrder) {
  ThreadContextRecordBuilder b;
  const TraceIds ids = Ids(0x10, 0x01);
  b.Reset(ids);
  EXPECT_EQ(b.Add(0, "/checkout"), AttributeResult::kAdded);
  EXPECT_EQ(b.Add(3, ""), AttributeResult::kAdded);
  EXPECT_EQ(b.Add(1, "GET"), AttributeResult::kAdded);
  ASSERT_EQ(b.RequiredBytes(), 28u + 11 + 2 + 5);
  alignas(8) uint8_t buf[128] = {};
  const otel_thread_ctx_record_t* r = b.WriteTo(buf, sizeof(buf));
  ASSERT_EQ(r, reinterpret_cast<otel_thread_ctx_record_t*>(buf));
  const auto attrs = Attrs({{0, "/checkout"}, {3, ""}, {1, "GET"}});
  EXPECT_EQ(Bytes(r), Concat(Header(ids, 0x01, attrs.size()), attrs));
}

TEST(ThreadContextRecord, WithoutATraceTheIdsAndFlagsAreZero) {
  ThreadContextRecordBuilder b;
  TraceIds ids;
  ids.trace_flags = 1;  // flags without ids are not written
  b.Reset(ids);
  EXPECT_TRUE(b.empty());
  b.Add(2, "acme");
  EXPECT_FALSE(b.empty());
  alignas(8) uint8_t buf[64];
  const auto attrs = Attrs({{2, "acme"}});
  EXPECT_EQ(Bytes(b.WriteTo(buf, sizeof(buf))), Concat(Header(TraceIds{}, 0, attrs.size()), attrs));
}

TEST(ThreadContextRecord, CutsValuesAt255BytesOnACharacterBoundary) {
  ThreadContextRecordBuilder b;
  b.Reset({});
  // 254 ASCII bytes then a 3-byte character: byte 255 is inside it.
  const std::string value = std::string(254, 'a') + "\xe2\x82\xac" + "tail";
  const std::string c(256, 'c'), b80(80, 'b');  // views must outlive WriteTo()
  EXPECT_EQ(b.Add(0, value), AttributeResult::kCut);
  EXPECT_EQ(b.Add(1, c), AttributeResult::kCut);
  EXPECT_EQ(b.Add(2, b80), AttributeResult::kAdded);
  alignas(8) uint8_t buf[1024];
  const auto* r = b.WriteTo(buf, sizeof(buf));
  const auto attrs =
      Attrs({{0, std::string(254, 'a')}, {1, std::string(255, 'c')}, {2, std::string(80, 'b')}});
  EXPECT_EQ(Bytes(r), Concat(Header(TraceIds{}, 0, attrs.size()), attrs));
}

TEST(ThreadContextRecord, LeavesOutValuesThatAreNotUtf8) {
  ThreadContextRecordBuilder b;
  b.Reset({});
  EXPECT_EQ(b.Add(0, "\xff\xfe"), AttributeResult::kNotUtf8);
  EXPECT_EQ(b.Add(1, "\xed\xa0\x80"), AttributeResult::kNotUtf8);  // a surrogate
  EXPECT_EQ(b.Add(2, "\xc0\xaf"), AttributeResult::kNotUtf8);      // overlong
  EXPECT_EQ(b.Add(3, std::string_view("a\0b", 3)), AttributeResult::kAdded);
  EXPECT_EQ(b.RequiredBytes(), 28u + 5);
}

TEST(ThreadContextRecord, StaysWithin640BytesAndLaterSmallerEntriesStillFit) {
  ThreadContextRecordBuilder b;
  b.Reset(Ids(1, 1));
  // Two 255-byte values take 514 bytes of the 612; a third does not fit.
  const std::string x(255, 'x'), z(255, 'z'), w(96, 'w');
  EXPECT_EQ(b.Add(0, x), AttributeResult::kAdded);
  EXPECT_EQ(b.Add(1, x), AttributeResult::kAdded);
  EXPECT_EQ(b.Add(2, z), AttributeResult::kNoRoom);
  EXPECT_EQ(b.Add(3, w), AttributeResult::kAdded);  // exactly 612
  EXPECT_EQ(b.Add(4, ""), AttributeResult::kNoRoom);
  EXPECT_EQ(b.RequiredBytes(), ThreadContextLimits::kMaxRecordBytes);
}

TEST(ThreadContextRecord, WriteToRejectsMisalignedOrSmallBuffers) {
  ThreadContextRecordBuilder b;
  b.Reset(Ids(1, 1));
  b.Add(0, "v");
  alignas(8) uint8_t buf[64];
  EXPECT_EQ(b.WriteTo(buf + 1, 63), nullptr);
  EXPECT_EQ(b.WriteTo(buf, b.RequiredBytes() - 1), nullptr);
  EXPECT_EQ(b.WriteTo(nullptr, 64), nullptr);
  EXPECT_NE(b.WriteTo(buf + 2, 62), nullptr);  // 2-byte alignment is enough
}

TEST(Utf8, ValidatesAndCutsOnBoundaries) {
  EXPECT_TRUE(IsUtf8(""));
  EXPECT_TRUE(IsUtf8("h\xc3\xa9llo \xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsUtf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsUtf8("\xe2\x82"));          // truncated
  EXPECT_FALSE(IsUtf8("\x80"));
  EXPECT_EQ(CutUtf8("\xf0\x9f\x98\x80", 3), "");
  EXPECT_EQ(CutUtf8("a\xf0\x9f\x98\x80", 4), "a");
  EXPECT_EQ(CutUtf8("ab\xc3\xa9", 4), "ab\xc3\xa9");
  EXPECT_EQ(CutUtf8("ab\xc3\xa9", 3), "ab");
}

// Every sequence is judged the same wherever it falls in a value: after any
// run of ASCII (a faster scan must not skip past it), and before any.
TEST(Utf8, JudgesSequencesAtEveryOffsetFromAWordBoundary) {
  const std::string_view valid[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
  const std::string_view invalid[] = {"\x80",
                                      "\xc3",
                                      "\xe2\x82",
                                      "\xed\xa0\x80",  // a surrogate
                                      "\xc0\xaf",      // overlong
                                      "\xf4\x90\x80\x80",
                                      "\xff"};
  for (size_t before = 0; before <= 17; ++before) {
    for (size_t after = 0; after <= 9; ++after) {
      const std::string pre(before, 'a');
      const std::string post(after, 'z');
      EXPECT_TRUE(IsUtf8(pre + post));
      for (std::string_view s : valid) {
        EXPECT_TRUE(IsUtf8(pre + std::string(s) + post)) << before << "+" << after;
      }
      for (std::string_view s : invalid) {
        EXPECT_FALSE(IsUtf8(pre + std::string(s) + post)) << before << "+" << after;
      }
    }
  }
}

TEST(AttributeKeyMap, GivesStableIndexesInOrderOfFirstUse) {
  AttributeKeyMap m;
  bool appended = false;
  EXPECT_EQ(m.FindOrAppend("route", &appended), 0);
  EXPECT_TRUE(appended);
  EXPECT_EQ(m.FindOrAppend("method", &appended), 1);
  EXPECT_EQ(m.FindOrAppend("route", &appended), 0);
  EXPECT_FALSE(appended);
  EXPECT_EQ(m.Find("method"), 1);
  EXPECT_EQ(m.Find("tenant"), -1);
  EXPECT_EQ(m.keys(), (std::vector<std::string>{"route", "method"}));
}

TEST(AttributeKeyMap, RefusesKeysReadersCannotUseAndStopsAt256) {
  AttributeKeyMap m;
  bool appended = true;
  EXPECT_EQ(m.FindOrAppend("", &appended), -1);
  EXPECT_FALSE(appended);
  EXPECT_EQ(m.FindOrAppend(std::string(256, 'k'), &appended), -1);
  EXPECT_EQ(m.FindOrAppend("\xff", &appended), -1);
  EXPECT_EQ(m.FindOrAppend(std::string(255, 'k'), &appended), 0);
  for (int i = 1; i < 256; ++i) {
    EXPECT_EQ(m.FindOrAppend("key" + std::to_string(i), &appended), i);
  }
  EXPECT_EQ(m.FindOrAppend("one-too-many", &appended), -1);
  EXPECT_FALSE(appended);
  EXPECT_EQ(m.keys().size(), 256u);
}

TEST(AttributeKeyMap, BoundsTheBytesOfAllKeys) {
  AttributeKeyMap m;
  bool appended = false;
  int mapped = 0;
  for (int i = 0; i < 256; ++i) {
    std::string key = std::to_string(i) + std::string(200, 'k');
    if (m.FindOrAppend(key, &appended) >= 0) ++mapped;
  }
  size_t total = 0;
  for (const auto& k : m.keys()) total += k.size();
  EXPECT_LE(total, AttributeKeyMap::kMaxTotalBytes);
  EXPECT_LT(mapped, 256);
  EXPECT_GT(mapped, 150);
}

// --- records written with their label sets --------------------------------

struct Built {
  Results r;
  const custom_labels_labelset_t* set() const {
    return reinterpret_cast<const custom_labels_labelset_t*>(static_cast<uintptr_t>(r.address));
  }
  const otel_thread_ctx_record_t* record() const {
    return reinterpret_cast<const otel_thread_ctx_record_t*>(static_cast<uintptr_t>(r.record));
  }
};

class RecordsTest : public ::testing::Test {
 protected:
  RecordsTest() : slab_(65536) { builders_.keys = &keys_; }

  // Builds `updates` over the set at `parent_offset` (or none) into the slab.
  Built Build(const std::vector<testing::Update>& updates, uint8_t op = scratch::kTraceInherit,
              const TraceIds& ids = {}, std::optional<uint32_t> parent_offset = std::nullopt,
              bool records = true) {
    AlignedBytes scratch = EncodeScratch(updates);
    if (records) AskForRecords(scratch, op, ids);
    const ByteSpan parent = parent_offset ? slab_.span() : ByteSpan{};
    EXPECT_EQ(BuildFromScratch(&builders_, parent, parent_offset.value_or(0), scratch.span(),
                               static_cast<uint32_t>(updates.size()), slab_.span(), next_),
              BuildStatus::kOk);
    Built b{ReadResults(scratch)};
    last_offset_ = next_;
    if (b.r.address != 0) next_ = b.r.next;
    return b;
  }

  SetBuilders builders_;
  LocalKeys keys_;
  AlignedBytes slab_;
  uint32_t next_ = 0;
  uint32_t last_offset_ = 0;
};

TEST_F(RecordsTest, TheRecordFollowsTheSetInTheSlabAndHoldsItsLabels) {
  const Built b = Build({{"route", "/a"}, {"customer", "acme"}});
  ASSERT_NE(b.r.address, 0u);
  ASSERT_NE(b.r.record, 0u);
  EXPECT_EQ(LabelSetLayout::RecordOf(b.set()), b.record());
  EXPECT_GT(b.r.record, b.r.address);
  EXPECT_LE(b.r.record + 28 + b.record()->attrs_data_size, b.r.address + b.r.needed);
  EXPECT_EQ(b.r.record % 2, 0u);
  const auto attrs = Attrs({{0, "/a"}, {1, "acme"}});
  EXPECT_EQ(Bytes(b.record()), Concat(Header(TraceIds{}, 0, attrs.size()), attrs));
  EXPECT_NE(LabelSetLayout::Validate(b.set(), b.r.needed), nullptr);
  EXPECT_EQ(keys_.map.keys(), (std::vector<std::string>{"route", "customer"}));
}

TEST_F(RecordsTest, TraceIdsAreSetInheritedAndClearedAndIdLabelsAreNotRepeated) {
  const TraceIds ids = Ids(0x40, 0x01);
  const Built traced = Build({{"trace_id", "4041..."}, {"span_id", "a0a1..."}, {"route", "/x"}},
                             scratch::kTraceSet, ids);
  const uint32_t traced_at = last_offset_;
  // route got index 0: the id labels never entered the key map.
  const auto attrs = Attrs({{0, "/x"}});
  EXPECT_EQ(Bytes(traced.record()), Concat(Header(ids, 0x01, attrs.size()), attrs));
  EXPECT_EQ(Labels(traced.set()).size(), 3u);  // the ABI v1 set still has them

  const Built child = Build({{"step", "2"}}, scratch::kTraceInherit, {}, traced_at);
  const auto child_attrs = Attrs({{0, "/x"}, {1, "2"}});
  EXPECT_EQ(Bytes(child.record()), Concat(Header(ids, 0x01, child_attrs.size()), child_attrs));

  const Built cleared = Build({{"trace_id", std::nullopt}, {"span_id", std::nullopt}},
                              scratch::kTraceClear, {}, traced_at);
  EXPECT_EQ(Labels(cleared.set()), (Pairs{{"route", "/x"}}));
  EXPECT_EQ(Bytes(cleared.record()), Concat(Header(TraceIds{}, 0, attrs.size()), attrs));
}

TEST_F(RecordsTest, IdsWithoutLabelsMakeAnEmptySetWithARecord) {
  const TraceIds ids = Ids(0x20, 0x00);
  const Built b = Build({}, scratch::kTraceSet, ids);
  ASSERT_NE(b.r.address, 0u);
  EXPECT_EQ(b.set()->count, 0u);
  EXPECT_EQ(Bytes(b.record()), Header(ids, 0, 0));
  const uint32_t at = last_offset_;
  // Clearing the ids of a set with no labels leaves nothing at all.
  const Built none = Build({}, scratch::kTraceClear, {}, at);
  EXPECT_EQ(none.r.address, 0u);
  EXPECT_EQ(none.r.record, 0u);
}

TEST_F(RecordsTest, NoRecordWhenNotAskedForOrNothingToTellOrKeysUnavailable) {
  EXPECT_EQ(Build({{"a", "1"}}, scratch::kTraceInherit, {}, std::nullopt, false).r.record, 0u);
  // Only an unmappable key (empty) and no trace: nothing to tell a reader.
  const Built b = Build({{"", "1"}});
  EXPECT_NE(b.r.address, 0u);
  EXPECT_EQ(b.r.record, 0u);
  EXPECT_EQ(LabelSetLayout::RecordOf(b.set()), nullptr);
  struct Unavailable final : AttributeKeys {
    int IndexOf(std::string_view) override { return 0; }
    bool Available() override { return false; }
  } unavailable;
  builders_.keys = &unavailable;
  EXPECT_EQ(Build({{"a", "1"}}, scratch::kTraceSet, Ids(1, 1)).r.record, 0u);
}

TEST_F(RecordsTest, ALargeSetMapsOnlyTheKeysOfAttributesThatFit) {
  std::vector<testing::Update> updates;
  for (int i = 0; i < 400; ++i) updates.push_back({"k" + std::to_string(i), std::string("v")});
  const Built b = Build(updates);
  ASSERT_NE(b.r.record, 0u);
  // Entries of 2 + 1 bytes: 204 fill the 612 bytes; the other 196 keys are
  // not spent on a map of 256.
  EXPECT_EQ(b.record()->attrs_data_size, 612);
  EXPECT_EQ(keys_.map.keys().size(), 204u);
  EXPECT_EQ(Labels(b.set()).size(), 400u);  // the ABI v1 set keeps them all
}

TEST_F(RecordsTest, AnUnknownTraceOperationIsRefused) {
  AlignedBytes scratch = EncodeScratch({{"a", "1"}});
  AskForRecords(scratch, 7);
  EXPECT_EQ(BuildFromScratch(&builders_, {}, 0, scratch.span(), 1, slab_.span(), 0),
            BuildStatus::kBadTraceOp);
}

// The key map grows as keys come (AttributeKeys::IndexOf appends): when it
// cannot, the build reports it instead of throwing into its caller's V8
// frames, leaves the slab as it was, and the next build works.
TEST_F(RecordsTest, AKeyMapThatCannotGrowIsReportedNotThrown) {
  struct Exhausted final : AttributeKeys {
    int IndexOf(std::string_view) override { throw std::bad_alloc(); }
  } exhausted;
  builders_.keys = &exhausted;
  AlignedBytes scratch = EncodeScratch({{"a", "1"}});
  AskForRecords(scratch, scratch::kTraceInherit, {});
  std::memset(slab_.data(), 0x5a, 256);
  EXPECT_EQ(BuildFromScratch(&builders_, {}, 0, scratch.span(), 1, slab_.span(), 0),
            BuildStatus::kOutOfMemory);
  for (size_t i = 0; i < 256; ++i) ASSERT_EQ(slab_.data()[i], 0x5a) << i;
  builders_.keys = &keys_;
  const Built b = Build({{"a", "1"}});
  EXPECT_EQ(Labels(b.set()), (Pairs{{"a", "1"}}));
  EXPECT_NE(b.r.record, 0u);
}

TEST_F(RecordsTest, ValidateRefusesASetWhoseRecordPointsOutsideItsBuffer) {
  const Built b = Build({{"a", "1"}});
  auto* set = const_cast<custom_labels_labelset_t*>(b.set());
  const size_t size = b.r.needed;
  EXPECT_NE(LabelSetLayout::Validate(set, size), nullptr);
  // The record's attributes running past the buffer.
  EXPECT_EQ(LabelSetLayout::Validate(set, size - 1), nullptr);
  LabelSetLayout::SetRecord(set, reinterpret_cast<const otel_thread_ctx_record_t*>(
                                     reinterpret_cast<uintptr_t>(b.record()) + 1));
  EXPECT_EQ(LabelSetLayout::Validate(set, size), nullptr);  // misaligned
  LabelSetLayout::SetRecord(set, reinterpret_cast<const otel_thread_ctx_record_t*>(
                                     reinterpret_cast<uintptr_t>(set) + size));
  EXPECT_EQ(LabelSetLayout::Validate(set, size), nullptr);  // past the end
}

TEST(TraceIds, NoneOnlyWhenEveryTraceIdByteIsZero) {
  TraceIds ids;
  EXPECT_TRUE(ids.none());
  ids.span_id[7] = 1;  // a span id alone is no trace
  EXPECT_TRUE(ids.none());
  for (size_t i = 0; i < ids.trace_id.size(); ++i) {
    TraceIds one;
    one.trace_id[i] = 0x80;
    EXPECT_FALSE(one.none()) << "byte " << i;
  }
}

}  // namespace
}  // namespace customlabels::core
