// ReadLabelSet is the reader's contract: null keys and null values are
// ignored, and the first label of a key wins.
#include <gtest/gtest.h>

#include "core/label_set_builder.h"
#include "label_set_cases.h"
#include "test_util.h"

namespace customlabels::core {
namespace {

custom_labels_string_t S(const char* s) {
  return {std::char_traits<char>::length(s), reinterpret_cast<const unsigned char*>(s)};
}

using View = std::vector<std::pair<std::string_view, std::string_view>>;

// The shared table: the reader's decoder is held to the same cases
// (reader_decode_test.cc).
class ReadLabelSetCase : public ::testing::TestWithParam<customlabels::testing::LabelSetCase> {};

TEST_P(ReadLabelSetCase, SeesWhatTheSpecSays) {
  customlabels::testing::CaseMemory memory;
  const custom_labels_labelset_t* set = GetParam().build(&memory);
  customlabels::testing::Pairs seen;
  for (const auto& [key, value] : ReadLabelSet(set)) seen.emplace_back(key, value);
  EXPECT_EQ(seen, GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, ReadLabelSetCase,
                         ::testing::ValuesIn(customlabels::testing::LabelSetCases()),
                         customlabels::testing::CaseName());

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
