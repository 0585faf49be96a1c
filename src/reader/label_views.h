// What a decoded set shows: as the ABI defines it, or as one profiled reader
// keeps it, plus the notes on what that reader would cut.
#ifndef CUSTOMLABELS_READER_LABEL_VIEWS_H_
#define CUSTOMLABELS_READER_LABEL_VIEWS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "label_set_decoder.h"
#include "reader_profiles.h"

namespace customlabels::reader {

struct Label {
  std::string key, value;
  uint64_t index = 0;                         // in storage[]
  uint64_t key_length = 0, value_length = 0;  // as published (longer than kept: cut)
};

// The ABI's view: ignored labels (null key, null value, unreadable) are
// skipped and the first label of a key wins. Keys cut by --max-key-bytes
// compare by their kept bytes and published length.
std::vector<Label> AbiView(const DecodedSet& set);

// What `profile`'s reader keeps: its first max_labels slots (ignored ones
// included), keys and values cut to its sizes, duplicates by its rule.
std::vector<Label> ProfileView(const DecodedSet& set, const ReaderProfile& profile);
// Plain-words notes on what `profile`'s reader would drop or cut (empty if
// nothing), e.g. `value of "k0" is cut to 53 bytes (60)`.
std::vector<std::string> ProfileNotes(const DecodedSet& set, const ReaderProfile& profile);

// {"k":"v",...}, or null for no set.
std::string JsonLabels(const std::vector<Label>* labels);
// k=v k=v, or "(none)".
std::string TextLabels(const std::vector<Label>* labels);

// What the reader's own limits cut from a set, precisely: how many labels of
// `count` were read, and each key or value kept shorter than published.
struct Truncation {
  struct Cut {
    uint64_t index = 0;  // in storage[]
    std::string key;     // the key's kept bytes
    uint64_t length = 0, kept = 0;
    Limit limit = kLimitNone;
  };
  uint64_t count = 0, kept = 0;     // labels published, labels read
  Limit labels_limit = kLimitNone;  // kLimitNone: the storage was unreadable
  std::vector<Cut> keys, values;

  bool labels_cut() const { return kept < count; }
  bool any() const { return labels_cut() || !keys.empty() || !values.empty(); }
};
// Cuts of the labels that were read (ignored ones excluded).
Truncation TruncationOf(const DecodedSet& set);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_LABEL_VIEWS_H_
