// BuildFromScratch: the entry the binding's build() uses, fed the way lib/
// feeds it, and fed what lib/ never sends.
#include "core/scratch_build.h"

#include <gtest/gtest.h>

#include <limits>

#include "scratch_test_util.h"
#include "test_util.h"

namespace customlabels::core {
namespace {

using testing::AlignedBytes;
using testing::AsSet;
using testing::EncodeScratch;
using testing::Labels;
using testing::Pairs;
using testing::ReadResults;

TEST(BuildFromScratch, WritesTheSetAndReportsItsAddressNextOffsetAndSize) {
  SetBuilders b;
  AlignedBytes scratch = EncodeScratch({{"route", "/a"}, {"customer", "acme"}});
  AlignedBytes slab(4096);
  ASSERT_EQ(BuildFromScratch(&b, {}, 0, scratch.span(), 2, slab.span(), 64), BuildStatus::kOk);
  const auto r = ReadResults(scratch);
  EXPECT_EQ(AsSet(r.address), reinterpret_cast<const void*>(slab.data() + 64));
  EXPECT_EQ(r.needed, LabelSetLayout::kLabelsOffset + 2 * sizeof(custom_labels_label_t) + 19);
  EXPECT_EQ(r.next, (64 + r.needed + 7) & ~7u);
  EXPECT_EQ(Labels(AsSet(r.address)), (Pairs{{"route", "/a"}, {"customer", "acme"}}));
  EXPECT_NE(LabelSetLayout::Validate(slab.data() + 64, 4096 - 64), nullptr);
}

TEST(BuildFromScratch, MergesOverAParentInTheSameSlabAndRemovesKeys) {
  SetBuilders b;
  AlignedBytes slab(4096);
  AlignedBytes first = EncodeScratch({{"a", "1"}, {"b", "2"}, {"c", "3"}});
  ASSERT_EQ(BuildFromScratch(&b, {}, 0, first.span(), 3, slab.span(), 0), BuildStatus::kOk);
  const auto parent = ReadResults(first);
  AlignedBytes second = EncodeScratch({{"b", std::nullopt}, {"a", "10"}, {"d", "4"}});
  ASSERT_EQ(BuildFromScratch(&b, slab.span(), 0, second.span(), 3, slab.span(), parent.next),
            BuildStatus::kOk);
  const auto child = ReadResults(second);
  EXPECT_EQ(Labels(AsSet(child.address)), (Pairs{{"a", "10"}, {"c", "3"}, {"d", "4"}}));
  // The parent is untouched.
  EXPECT_EQ(Labels(AsSet(parent.address)), (Pairs{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
}

TEST(BuildFromScratch, RemovingEveryLabelReportsNoSetAndKeepsTheOffset) {
  SetBuilders b;
  AlignedBytes slab(4096);
  AlignedBytes first = EncodeScratch({{"a", "1"}});
  ASSERT_EQ(BuildFromScratch(&b, {}, 0, first.span(), 1, slab.span(), 0), BuildStatus::kOk);
  AlignedBytes second = EncodeScratch({{"a", std::nullopt}});
  ASSERT_EQ(BuildFromScratch(&b, slab.span(), 0, second.span(), 1, slab.span(), 200),
            BuildStatus::kOk);
  const auto r = ReadResults(second);
  EXPECT_EQ(r.address, 0u);
  EXPECT_EQ(r.next, 200u);
  EXPECT_EQ(r.needed, 0u);
}

TEST(BuildFromScratch, ASetThatDoesNotFitIsNotWrittenAndSaysWhatItNeeds) {
  SetBuilders b;
  AlignedBytes scratch = EncodeScratch({{"key", std::string(100, 'v')}});
  AlignedBytes slab(128);
  ASSERT_EQ(BuildFromScratch(&b, {}, 0, scratch.span(), 1, slab.span(), 64), BuildStatus::kOk);
  auto r = ReadResults(scratch);
  EXPECT_EQ(r.address, 0u);
  EXPECT_EQ(r.next, scratch::kDidNotFit);
  EXPECT_EQ(r.needed, LabelSetLayout::kLabelsOffset + sizeof(custom_labels_label_t) + 103);
  // No slab at all: the same answer.
  ASSERT_EQ(BuildFromScratch(&b, {}, 0, scratch.span(), 1, {}, 0), BuildStatus::kOk);
  EXPECT_EQ(ReadResults(scratch).next, scratch::kDidNotFit);
  // An offset past the end of the slab.
  ASSERT_EQ(BuildFromScratch(&b, {}, 0, scratch.span(), 1, slab.span(), 4096), BuildStatus::kOk);
  EXPECT_EQ(ReadResults(scratch).next, scratch::kDidNotFit);
}

TEST(BuildFromScratch, RejectsAScratchBufferTooSmallForItsEntries) {
  SetBuilders b;
  AlignedBytes slab(4096);
  AlignedBytes tiny(8);
  EXPECT_EQ(BuildFromScratch(&b, {}, 0, tiny.span(), 0, slab.span(), 0),
            BuildStatus::kScratchTooSmall);
  EXPECT_EQ(BuildFromScratch(&b, {}, 0, {}, 0, slab.span(), 0), BuildStatus::kScratchTooSmall);
  AlignedBytes scratch = EncodeScratch({{"a", "1"}});
  EXPECT_EQ(BuildFromScratch(&b, {}, 0, scratch.span(), std::numeric_limits<uint32_t>::max(),
                             slab.span(), 0),
            BuildStatus::kScratchTooSmall);
}

TEST(BuildFromScratch, RejectsLengthsThatRunPastTheScratchBuffer) {
  SetBuilders b;
  AlignedBytes slab(4096);
  for (const uint32_t lens0 : {3u, 0xfffffff0u}) {
    AlignedBytes scratch = EncodeScratch({{"a", "1"}});
    const uint32_t lens[2] = {lens0, 0xfffffffeu};
    std::memcpy(scratch.data() + scratch::kHeaderBytes, lens, sizeof(lens));
    EXPECT_EQ(BuildFromScratch(&b, {}, 0, scratch.span(), 1, slab.span(), 0),
              BuildStatus::kScratchOverflow);
  }
  // A key length alone that is one byte too long.
  AlignedBytes scratch = EncodeScratch({{"abc", std::nullopt}});
  const uint32_t lens[2] = {4, scratch::kValueRemoved};
  std::memcpy(scratch.data() + scratch::kHeaderBytes, lens, sizeof(lens));
  EXPECT_EQ(BuildFromScratch(&b, {}, 0, scratch.span(), 1, slab.span(), 0),
            BuildStatus::kScratchOverflow);
}

TEST(BuildFromScratch, RejectsAParentThatIsNotOneOfOurSets) {
  SetBuilders b;
  AlignedBytes slab(4096);
  AlignedBytes junk(256);
  std::memset(junk.data(), 0x41, junk.size());
  AlignedBytes scratch = EncodeScratch({{"a", "1"}});
  EXPECT_EQ(BuildFromScratch(&b, junk.span(), 0, scratch.span(), 1, slab.span(), 0),
            BuildStatus::kBadParent);
  EXPECT_EQ(BuildFromScratch(&b, junk.span(), 4096, scratch.span(), 1, slab.span(), 0),
            BuildStatus::kBadParent);
}

TEST(BuildFromScratch, RefusesToWriteOverItsOwnInputs) {
  SetBuilders b;
  AlignedBytes slab(4096);
  AlignedBytes first = EncodeScratch({{"a", "1"}, {"b", "2"}});
  ASSERT_EQ(BuildFromScratch(&b, {}, 0, first.span(), 2, slab.span(), 0), BuildStatus::kOk);
  AlignedBytes second = EncodeScratch({{"c", "3"}});
  // Over the parent set.
  EXPECT_EQ(BuildFromScratch(&b, slab.span(), 0, second.span(), 1, slab.span(), 16),
            BuildStatus::kBadSlab);
  // Into the scratch buffer itself.
  AlignedBytes big = EncodeScratch({{"c", "3"}}, 1024);
  EXPECT_EQ(BuildFromScratch(&b, {}, 0, big.span(), 1, big.span(), 64), BuildStatus::kBadSlab);
  // Misaligned.
  EXPECT_EQ(BuildFromScratch(&b, {}, 0, second.span(), 1, slab.span(), 1001),
            BuildStatus::kBadSlab);
}

}  // namespace
}  // namespace customlabels::core
