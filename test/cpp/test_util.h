#ifndef CUSTOMLABELS_TEST_CPP_TEST_UTIL_H_
#define CUSTOMLABELS_TEST_CPP_TEST_UTIL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/label_set_builder.h"

namespace customlabels::core::testing {

// An 8-byte aligned buffer holding one written set.
struct OwnedSet {
  std::unique_ptr<uint64_t[]> words;
  size_t size = 0;
  const custom_labels_labelset_t* set = nullptr;
};

inline OwnedSet Write(const LabelSetBuilder& builder) {
  OwnedSet out;
  out.size = builder.RequiredBytes();
  out.words = std::make_unique<uint64_t[]>((out.size + 7) / 8);
  out.set = builder.WriteTo(out.words.get(), out.size);
  return out;
}

inline std::string Str(const custom_labels_string_t& s) {
  return {reinterpret_cast<const char*>(s.buf), s.len};
}

// The labels in storage order, as (key, value) strings.
inline std::vector<std::pair<std::string, std::string>> Labels(
    const custom_labels_labelset_t* set) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < set->count; ++i) {
    out.emplace_back(Str(set->storage[i].key), Str(set->storage[i].value));
  }
  return out;
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

}  // namespace customlabels::core::testing

#endif  // CUSTOMLABELS_TEST_CPP_TEST_UTIL_H_
