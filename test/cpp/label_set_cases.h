// One table of label-set shapes and what a reader must see in each, by the
// spec as this project reads it: a null key.buf is ignored, a set key with a
// null value.buf is ignored too (the ABI forbids it; the reader reports it),
// ignored labels do not claim their key, and the first label of a key wins.
//
// Each case builds its set in this process's memory and lists the regions a
// reader may read, so core::ReadLabelSet reads the set directly and the
// reader's decoder reads the very same bytes at the same addresses through a
// MemoryImage (reader_decode_test.cc; reader_view_test.cc for the core).
#ifndef CUSTOMLABELS_TEST_CPP_LABEL_SET_CASES_H_
#define CUSTOMLABELS_TEST_CPP_LABEL_SET_CASES_H_

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/abi.h"

namespace customlabels::testing {

// The memory of one case: every buffer the set points to, kept alive here.
class CaseMemory final {
 public:
  struct Region {
    const void* data;
    size_t size;
  };

  // A copy of `bytes` (non-null even when empty).
  const unsigned char* Bytes(const std::string& bytes) {
    strings_.push_back(std::make_unique<std::string>(bytes));
    const std::string& s = *strings_.back();
    regions_.push_back({s.data(), s.size() + 1});  // with its NUL: never empty
    return reinterpret_cast<const unsigned char*>(s.data());
  }
  custom_labels_string_t Str(const std::string& s) { return {s.size(), Bytes(s)}; }
  // `n` zeroed labels.
  custom_labels_label_t* Labels(size_t n) {
    labels_.push_back(std::make_unique<custom_labels_label_t[]>(n == 0 ? 1 : n));
    regions_.push_back({labels_.back().get(), (n == 0 ? 1 : n) * sizeof(custom_labels_label_t)});
    return labels_.back().get();
  }
  const custom_labels_labelset_t* Set(custom_labels_label_t* storage, size_t count,
                                      size_t capacity) {
    sets_.push_back(std::make_unique<custom_labels_labelset_t>());
    *sets_.back() = {storage, count, capacity};
    regions_.push_back({sets_.back().get(), sizeof(custom_labels_labelset_t)});
    return sets_.back().get();
  }
  const std::vector<Region>& regions() const { return regions_; }

 private:
  std::vector<std::unique_ptr<std::string>> strings_;
  std::vector<std::unique_ptr<custom_labels_label_t[]>> labels_;
  std::vector<std::unique_ptr<custom_labels_labelset_t>> sets_;
  std::vector<Region> regions_;
};

using Pairs = std::vector<std::pair<std::string, std::string>>;

struct LabelSetCase {
  const char* name;
  // Builds the case in `memory`; returns the set pointer (maybe null).
  std::function<const custom_labels_labelset_t*(CaseMemory* memory)> build;
  Pairs expected;       // what a reader sees, in storage order
  size_t problems = 0;  // notes the reader adds (null values): ABI violations
};

// How GoogleTest prints a case (instead of its bytes).
inline void PrintTo(const LabelSetCase& c, std::ostream* os) { *os << c.name; }

// Test names for INSTANTIATE_TEST_SUITE_P: "3_first_label_of_a_key_wins".
struct CaseName {
  std::string operator()(const ::testing::TestParamInfo<LabelSetCase>& param) const {
    std::string name = std::to_string(param.index) + "_";
    for (const char* c = param.param.name; *c != '\0'; ++c) {
      name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
    }
    return name;
  }
};

inline const custom_labels_string_t kNullString{0, nullptr};

inline std::vector<LabelSetCase> LabelSetCases() {
  using M = CaseMemory;
  std::vector<LabelSetCase> cases;
  cases.push_back({"no set", [](M*) { return nullptr; }, {}});
  cases.push_back({"empty set, null storage", [](M* m) { return m->Set(nullptr, 0, 0); }, {}});
  cases.push_back({"empty set with capacity", [](M* m) { return m->Set(m->Labels(4), 0, 4); }, {}});
  cases.push_back({"plain labels in storage order",
                   [](M* m) {
                     auto* l = m->Labels(2);
                     l[0] = {m->Str("tenant"), m->Str("t1")};
                     l[1] = {m->Str("route"), m->Str("/r")};
                     return m->Set(l, 2, 2);
                   },
                   {{"tenant", "t1"}, {"route", "/r"}}});
  cases.push_back({"null key is ignored, whatever its length and value",
                   [](M* m) {
                     auto* l = m->Labels(3);
                     l[0] = {kNullString, m->Str("ignored")};
                     l[1] = {{12345, nullptr}, {0, nullptr}};
                     l[2] = {m->Str("a"), m->Str("1")};
                     return m->Set(l, 3, 8);
                   },
                   {{"a", "1"}}});
  cases.push_back({"first label of a key wins",
                   [](M* m) {
                     auto* l = m->Labels(4);
                     l[0] = {m->Str("a"), m->Str("first")};
                     l[1] = {m->Str("b"), m->Str("2")};
                     l[2] = {m->Str("a"), m->Str("second")};
                     l[3] = {m->Str("b"), m->Str("3")};
                     return m->Set(l, 4, 4);
                   },
                   {{"a", "first"}, {"b", "2"}}});
  cases.push_back({"null value is ignored and does not claim its key",
                   [](M* m) {
                     auto* l = m->Labels(3);
                     l[0] = {m->Str("a"), {5, nullptr}};
                     l[1] = {m->Str("a"), m->Str("second")};
                     l[2] = {m->Str("b"), m->Str("2")};
                     return m->Set(l, 3, 3);
                   },
                   {{"a", "second"}, {"b", "2"}},
                   1});
  cases.push_back({"a key whose only label has a null value is absent",
                   [](M* m) {
                     auto* l = m->Labels(2);
                     l[0] = {m->Str("gone"), kNullString};
                     l[1] = {m->Str("kept"), m->Str("v")};
                     return m->Set(l, 2, 2);
                   },
                   {{"kept", "v"}},
                   1});
  cases.push_back({"every label ignored",
                   [](M* m) {
                     auto* l = m->Labels(3);
                     l[0] = {kNullString, m->Str("x")};
                     l[1] = {m->Str("a"), kNullString};
                     l[2] = {m->Str("b"), kNullString};
                     return m->Set(l, 3, 3);
                   },
                   {},
                   2});
  cases.push_back({"empty key and empty value are labels (non-null buffers)",
                   [](M* m) {
                     auto* l = m->Labels(2);
                     l[0] = {m->Str(""), m->Str("")};
                     l[1] = {m->Str("k"), m->Str("")};
                     return m->Set(l, 2, 2);
                   },
                   {{"", ""}, {"k", ""}}});
  cases.push_back({"keys are bytes: NUL inside, prefixes and invalid UTF-8 are distinct",
                   [](M* m) {
                     auto* l = m->Labels(4);
                     l[0] = {m->Str(std::string("a\0b", 3)), m->Str("1")};
                     l[1] = {m->Str("a"), m->Str("2")};
                     l[2] = {m->Str("\xff"), m->Str("\xc3")};
                     l[3] = {m->Str(std::string("a\0b", 3)), m->Str("dup")};
                     return m->Set(l, 4, 4);
                   },
                   {{std::string("a\0b", 3), "1"}, {"a", "2"}, {"\xff", "\xc3"}}});
  cases.push_back(
      {"first wins also in large sets (40 keys, 100 labels)",
       [](M* m) {
         auto* l = m->Labels(100);
         for (size_t i = 0; i < 100; ++i) {
           l[i] = {m->Str("k" + std::to_string(i % 40)), m->Str(i < 40 ? "first" : "later")};
         }
         return m->Set(l, 100, 100);
       },
       [] {
         Pairs p;
         for (int i = 0; i < 40; ++i) p.emplace_back("k" + std::to_string(i), "first");
         return p;
       }()});
  cases.push_back({"null values in a large set",
                   [](M* m) {
                     auto* l = m->Labels(40);
                     for (size_t i = 0; i < 40; ++i) {
                       l[i] = {m->Str("k" + std::to_string(i % 20)),
                               i < 20 && i % 2 == 0 ? kNullString : m->Str(std::to_string(i))};
                     }
                     return m->Set(l, 40, 40);
                   },
                   [] {
                     // Odd keys keep their first value; even keys (null
                     // first) their second, and they now come after.
                     Pairs p;
                     for (int i = 1; i < 20; i += 2)
                       p.emplace_back("k" + std::to_string(i), std::to_string(i));
                     for (int i = 20; i < 40; i += 2) {
                       p.emplace_back("k" + std::to_string(i % 20), std::to_string(i));
                     }
                     return p;
                   }(),
                   10});
  return cases;
}

}  // namespace customlabels::testing

#endif  // CUSTOMLABELS_TEST_CPP_LABEL_SET_CASES_H_
