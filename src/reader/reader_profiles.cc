#include "reader_profiles.h"

namespace customlabels::reader {

const std::vector<ReaderProfile>& ReaderProfiles() {
  // The upstream OpenTelemetry eBPF profiler (open-telemetry/
  // opentelemetry-ebpf-profiler, v0.0.202633) reads no Custom Label ABI v1 at
  // all, so it has no profile here.
  static const std::vector<ReaderProfile> kProfiles = {
      {"parca", "Parca agent", 10, 25, 53, ReaderProfile::Duplicates::kLastWins,
       "Parca Agent v0.43.0-v0.49.0, through its fork parca-dev/opentelemetry-ebpf-profiler "
       "(tag v0.0.202627): support/ebpf/types.h MAX_CUSTOM_LABELS 10, CUSTOM_LABEL_MAX_KEY_LEN "
       "25, CUSTOM_LABEL_MAX_VAL_LEN 53 (commit 8f828332, \"Bump key size to 25 (#162)\"); "
       "support/ebpf/native_custom_labels.h read_labelset_into_trace reads the first 10 slots, "
       "null-key slots included; tracer/tracer.go stores labels in a map, so the last of a key "
       "wins",
       true},
      {"parca-0.42", "Parca agent <= 0.42", 10, 15, 47, ReaderProfile::Duplicates::kLastWins,
       "Parca Agent v0.37.0-v0.42.0: support/ebpf/types.h MAX_CUSTOM_LABELS 10, "
       "CUSTOM_LABEL_MAX_KEY_LEN 16 (COMM_LEN), CUSTOM_LABEL_MAX_VAL_LEN 48, read as "
       "MIN(len, MAX - 1) bytes: keys 15, values 47; the last of a key wins",
       false},
  };
  return kProfiles;
}

const ReaderProfile* FindReaderProfile(std::string_view name) {
  for (const ReaderProfile& p : ReaderProfiles()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

}  // namespace customlabels::reader
