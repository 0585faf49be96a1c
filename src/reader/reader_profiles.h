// What known eBPF profilers keep of a label set, one table entry per reader:
// `--reader-limits NAME` shows a set as that reader keeps it, and by default
// the cuts of the profiles flagged_by_default are flagged. Adding a profile is one entry in
// reader_profiles.cc.
#ifndef CUSTOMLABELS_READER_READER_PROFILES_H_
#define CUSTOMLABELS_READER_READER_PROFILES_H_

#include <cstddef>
#include <string_view>
#include <vector>

namespace customlabels::reader {

struct ReaderProfile {
  enum class Duplicates {
    kFirstWins,  // the ABI's rule
    kLastWins,   // a later label of a key replaces the earlier one
  };
  const char* name;     // for --reader-limits, and the JSON field of its notes
  const char* display;  // in text output, e.g. "Parca agent"
  size_t max_labels;    // storage[] slots read (null-key slots included)
  size_t max_key_bytes;
  size_t max_value_bytes;
  Duplicates duplicates;
  const char* citation;  // where the numbers come from: reader, file, version
  // Its cuts are flagged when no --reader-limits is given (the current
  // version of a reader; older versions only on request).
  bool flagged_by_default;
};

// Every profile, in the order --help lists them.
const std::vector<ReaderProfile>& ReaderProfiles();
// The profile called `name`, or nullptr.
const ReaderProfile* FindReaderProfile(std::string_view name);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_READER_PROFILES_H_
