#include "core/label_set_builder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "test_util.h"

namespace customlabels::core {
namespace {

using testing::Labels;
using testing::Pairs;
using testing::Write;

TEST(LabelSetBuilder, EmptyBuilderWritesAnEmptyCompactSet) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  EXPECT_EQ(b.count(), 0u);
  auto out = Write(b);
  ASSERT_NE(out.set, nullptr);
  EXPECT_EQ(out.set->count, 0u);
  EXPECT_EQ(out.set->capacity, 0u);
}

TEST(LabelSetBuilder, WritesLabelsInOrderIntoOneCompactBuffer) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  b.Set("customer", "acme");
  b.Set("route", "/checkout");
  auto out = Write(b);
  ASSERT_NE(out.set, nullptr);
  EXPECT_EQ(out.set->count, 2u);
  EXPECT_EQ(out.set->capacity, out.set->count);
  EXPECT_EQ(Labels(out.set), (Pairs{{"customer", "acme"}, {"route", "/checkout"}}));
  // Header, labels and bytes all live in the caller's buffer.
  const auto* begin = reinterpret_cast<const unsigned char*>(out.words.get());
  const auto* end = begin + out.size;
  EXPECT_EQ(reinterpret_cast<const void*>(out.set), begin);
  for (size_t i = 0; i < out.set->count; ++i) {
    for (const auto& s : {out.set->storage[i].key, out.set->storage[i].value}) {
      EXPECT_GE(s.buf, begin);
      EXPECT_LE(s.buf + s.len, end);
    }
  }
}

TEST(LabelSetBuilder, MergeOverParentLetsTheNewValueWinAndKeepsOrder) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  b.Set("a", "1");
  b.Set("b", "2");
  auto parent = Write(b);
  b.Reset(parent.set);
  b.Set("c", "3");
  b.Set("a", "one");
  auto child = Write(b);
  EXPECT_EQ(Labels(child.set), (Pairs{{"a", "one"}, {"b", "2"}, {"c", "3"}}));
  // The parent is immutable: merging never touched it.
  EXPECT_EQ(Labels(parent.set), (Pairs{{"a", "1"}, {"b", "2"}}));
}

TEST(LabelSetBuilder, RemovesInheritedKeysAndCompacts) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  b.Set("a", "1");
  b.Set("b", "2");
  b.Set("c", "3");
  auto parent = Write(b);
  b.Reset(parent.set);
  b.Remove("b");
  b.Remove("missing");
  EXPECT_EQ(b.count(), 2u);
  auto child = Write(b);
  EXPECT_EQ(child.set->count, 2u);
  EXPECT_EQ(child.set->capacity, 2u);
  EXPECT_EQ(Labels(child.set), (Pairs{{"a", "1"}, {"c", "3"}}));
}

TEST(LabelSetBuilder, RemoveThenSetAgainAndLastSetWins) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  b.Set("k", "1");
  b.Remove("k");
  EXPECT_EQ(b.count(), 0u);
  b.Set("k", "2");
  b.Set("k", "3");
  EXPECT_EQ(b.count(), 1u);
  EXPECT_EQ(Labels(Write(b).set), (Pairs{{"k", "3"}}));
}

TEST(LabelSetBuilder, RemovingEverythingLeavesAnEmptySet) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  b.Set("a", "1");
  auto parent = Write(b);
  b.Reset(parent.set);
  b.Remove("a");
  EXPECT_EQ(b.count(), 0u);
  EXPECT_EQ(Write(b).set->count, 0u);
}

TEST(LabelSetBuilder, KeepsArbitraryBytesIncludingNul) {
  const std::string key("k\0ey", 4);
  const std::string value("\0\xff\xfe\x01", 4);
  LabelSetBuilder b;
  b.Reset(nullptr);
  const std::string other("k\0other", 7);  // views must outlive WriteTo()
  b.Set(key, value);
  b.Set(other, "x");
  auto out = Write(b);
  ASSERT_EQ(out.set->count, 2u);
  EXPECT_EQ(out.set->storage[0].key.len, 4u);
  EXPECT_EQ(std::memcmp(out.set->storage[0].key.buf, key.data(), 4), 0);
  EXPECT_EQ(std::memcmp(out.set->storage[0].value.buf, value.data(), 4), 0);
}

TEST(LabelSetBuilder, EmptyValuesAndKeysStillPointIntoTheBuffer) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  b.Set("k", "");
  b.Set("", "v");
  auto out = Write(b);
  ASSERT_EQ(out.set->count, 2u);
  EXPECT_NE(out.set->storage[0].value.buf, nullptr);
  EXPECT_EQ(out.set->storage[0].value.len, 0u);
  EXPECT_NE(out.set->storage[1].key.buf, nullptr);
}

TEST(LabelSetBuilder, HandlesOneMebibyteValues) {
  const std::string big(1 << 20, 'x');
  LabelSetBuilder b;
  b.Reset(nullptr);
  b.Set("big", big);
  auto parent = Write(b);
  b.Reset(parent.set);
  b.Set("other", big);
  auto child = Write(b);
  ASSERT_EQ(child.set->count, 2u);
  EXPECT_EQ(child.set->storage[0].value.len, big.size());
  EXPECT_EQ(testing::Str(child.set->storage[1].value), big);
  EXPECT_GE(child.size, 2 * big.size());
}

TEST(LabelSetBuilder, HandlesThousandsOfLabelsWithOverridesAndRemovals) {
  // The builder keeps views: inputs must outlive WriteTo().
  std::vector<std::string> keys, values;
  for (int i = 0; i <= 5000; ++i) {
    keys.push_back("key" + std::to_string(i));
    values.push_back(std::to_string(i));
  }
  LabelSetBuilder b;
  b.Reset(nullptr);
  for (int i = 0; i < 5000; ++i) b.Set(keys[i], values[i]);
  auto parent = Write(b);
  ASSERT_EQ(parent.set->count, 5000u);
  b.Reset(parent.set);
  for (int i = 0; i < 5000; i += 2) b.Set(keys[i], "even");
  for (int i = 1; i < 5000; i += 10) b.Remove(keys[i]);
  b.Set(keys[5000], "new");
  auto child = Write(b);
  ASSERT_EQ(child.set->count, 5000u - 500u + 1u);
  const auto labels = Labels(child.set);
  EXPECT_EQ(labels.front(), (std::pair<std::string, std::string>{"key0", "even"}));
  EXPECT_EQ(labels[1], (std::pair<std::string, std::string>{"key2", "even"}));
  EXPECT_EQ(labels[2], (std::pair<std::string, std::string>{"key3", "3"}));
  EXPECT_EQ(labels.back(), (std::pair<std::string, std::string>{"key5000", "new"}));
  EXPECT_EQ(ReadLabelSet(child.set).size(), child.set->count);  // all unique
}

TEST(LabelSetBuilder, WrittenSetDoesNotDependOnParentOrInputs) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  std::string value = "parent-value";
  b.Set("p", value);
  auto parent = Write(b);
  b.Reset(parent.set);
  std::string input = "child-value";
  b.Set("c", input);
  auto child = Write(b);
  // Destroy everything the child was built from.
  std::memset(parent.words.get(), 0xAB, parent.size);
  parent.words.reset();
  input.assign(input.size(), '#');
  EXPECT_EQ(Labels(child.set), (Pairs{{"p", "parent-value"}, {"c", "child-value"}}));
}

TEST(LabelSetBuilder, WriteToRejectsSmallOrMisalignedBuffers) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  b.Set("key", "value");
  auto words = std::make_unique<uint64_t[]>(16);
  EXPECT_EQ(b.WriteTo(words.get(), b.RequiredBytes() - 1), nullptr);
  EXPECT_EQ(b.WriteTo(reinterpret_cast<char*>(words.get()) + 4, 100), nullptr);
  EXPECT_EQ(b.WriteTo(nullptr, 1000), nullptr);
  EXPECT_NE(b.WriteTo(words.get(), b.RequiredBytes()), nullptr);
}

TEST(LabelSetLayout, ValidateAcceptsWrittenSetsOnly) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  b.Set("key", "value");
  auto out = Write(b);
  EXPECT_EQ(LabelSetLayout::Validate(out.words.get(), out.size), out.set);
  EXPECT_EQ(LabelSetLayout::Validate(out.words.get(), out.size - 1), nullptr);
  EXPECT_EQ(LabelSetLayout::Validate(nullptr, out.size), nullptr);
  auto copy = std::make_unique<uint64_t[]>((out.size + 7) / 8);
  std::memcpy(copy.get(), out.words.get(), out.size);
  // Pointers of a copy point outside it.
  EXPECT_EQ(LabelSetLayout::Validate(copy.get(), out.size), nullptr);
  auto* bytes = reinterpret_cast<unsigned char*>(out.words.get());
  bytes[sizeof(custom_labels_labelset_t)] ^= 1;  // magic
  EXPECT_EQ(LabelSetLayout::Validate(out.words.get(), out.size), nullptr);
  uint64_t zeros[8] = {};
  EXPECT_EQ(LabelSetLayout::Validate(zeros, sizeof(zeros)), nullptr);
}

TEST(LabelSetLayout, ValidateRejectsCountsBeyondTheBuffer) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  b.Set("key", "value");
  auto out = Write(b);
  auto* set = const_cast<custom_labels_labelset_t*>(out.set);
  set->count = set->capacity = 1000;
  EXPECT_EQ(LabelSetLayout::Validate(out.words.get(), out.size), nullptr);
}

}  // namespace
}  // namespace customlabels::core
