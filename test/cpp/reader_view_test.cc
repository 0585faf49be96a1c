// ReadLabelSet is the reader's contract: skip null keys, first key wins.
#include <gtest/gtest.h>

#include "core/label_set_builder.h"
#include "test_util.h"

namespace customlabels::core {
namespace {

custom_labels_string_t S(const char* s) {
  return {std::char_traits<char>::length(s), reinterpret_cast<const unsigned char*>(s)};
}

using View = std::vector<std::pair<std::string_view, std::string_view>>;

TEST(ReadLabelSet, NullSetReadsAsNoLabels) {
  EXPECT_TRUE(ReadLabelSet(nullptr).empty());
  custom_labels_labelset_t empty{nullptr, 0, 0};
  EXPECT_TRUE(ReadLabelSet(&empty).empty());
}

TEST(ReadLabelSet, SkipsNullKeysAndKeepsTheFirstOfADuplicatedKey) {
  custom_labels_label_t labels[] = {
      {{0, nullptr}, S("ignored")},
      {S("a"), S("first")},
      {S("b"), S("2")},
      {S("a"), S("second")},
  };
  custom_labels_labelset_t set{labels, 4, 8};
  EXPECT_EQ(ReadLabelSet(&set), (View{{"a", "first"}, {"b", "2"}}));
}

TEST(ReadLabelSet, FirstWinsAlsoInLargeSets) {
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) keys.push_back("k" + std::to_string(i % 40));
  std::vector<custom_labels_label_t> labels;
  for (size_t i = 0; i < keys.size(); ++i) {
    labels.push_back({{keys[i].size(), reinterpret_cast<const unsigned char*>(keys[i].data())},
                      i < 40 ? S("first") : S("later")});
  }
  custom_labels_labelset_t set{labels.data(), labels.size(), labels.size()};
  const auto view = ReadLabelSet(&set);
  ASSERT_EQ(view.size(), 40u);
  for (const auto& kv : view) EXPECT_EQ(kv.second, "first");
}

TEST(ReadLabelSet, ResetFromAForeignSetUsesReaderSemantics) {
  custom_labels_label_t labels[] = {
      {S("a"), S("1")}, {{0, nullptr}, S("x")}, {S("a"), S("2")}, {S("b"), S("3")}};
  custom_labels_labelset_t foreign{labels, 4, 4};
  LabelSetBuilder b;
  b.Reset(&foreign);
  b.Set("c", "4");
  auto out = testing::Write(b);
  EXPECT_EQ(testing::Labels(out.set), (testing::Pairs{{"a", "1"}, {"b", "3"}, {"c", "4"}}));
}

TEST(ReadLabelSet, ReadsAWrittenSetExactly) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  b.Set("tenant", "t1");
  b.Set("route", "/r");
  auto out = testing::Write(b);
  EXPECT_EQ(ReadLabelSet(out.set), (View{{"tenant", "t1"}, {"route", "/r"}}));
}

}  // namespace
}  // namespace customlabels::core
