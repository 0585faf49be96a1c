// Aggregation of `sample`: what each sample of a thread showed, counted per
// distinct row. Pure (no process access), so it is unit tested. The label
// bytes it keeps are bounded: once `budget_bytes` are spent on distinct rows,
// samples of further new rows count in one "other" row per thread.
#ifndef CUSTOMLABELS_READER_SAMPLE_TABLE_H_
#define CUSTOMLABELS_READER_SAMPLE_TABLE_H_

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "label_set_decoder.h"
#include "label_views.h"
#include "otel_record.h"
#include "reader_profiles.h"

namespace customlabels::reader {

// What one sample of a thread's OpenTelemetry context showed: its
// attributes (keyed through the process context), or why it could not be
// used. Trace and span ids are not part of it (they change with every
// request): rows count them instead.
struct SampleOtel {
  std::string error;
  std::vector<OtelAttribute> attributes;
};

// What one sample of a thread showed.
struct SampleRow {
  std::string error;          // non-empty: the set could not be read
  bool has_set = false;       // false: no set (or, with --by, no such key)
  std::vector<Label> labels;  // the view; with --by, just that label
  Truncation truncation;
  bool other = false;  // stands for rows not kept (budget spent)
  // The thread's OpenTelemetry context (nullopt: none, or not read).
  std::optional<SampleOtel> otel;
  // Its trace id, when non-zero: counted per row, not part of its identity.
  std::optional<std::array<uint8_t, 16>> trace_id;
};

// Sets row->otel (and trace_id) from `record` when the thread has a
// context or it could not be read, keys resolved through `key_map`
// (nullptr: none).
void AddOtelSample(SampleRow* row, const OtelRecord& record, const AttributeKeyMap* key_map);

// The row a sample of `set` adds: the ABI view (or `profile`'s), or with
// `by` only the label of that key (a key cut by --max-key-bytes never
// matches).
SampleRow MakeSampleRow(const DecodedSet& set, const ReaderProfile* profile,
                        const std::optional<std::string>& by);

class SampleTable final {
 public:
  static constexpr uint64_t kDefaultBudgetBytes = 32ull << 20;
  // Distinct trace ids counted per row, at most.
  static constexpr size_t kMaxTraceIds = 1024;

  struct Entry {
    SampleRow row;
    uint64_t samples = 0;
    uint64_t traced = 0;                          // samples with a trace id
    std::set<std::array<uint8_t, 16>> trace_ids;  // distinct ones, up to kMaxTraceIds
    bool trace_ids_capped = false;                // more were seen than kept (cap or budget)
  };
  struct Thread {
    pid_t tid = 0;
    std::string name;
    uint64_t samples = 0;
    std::vector<const Entry*> rows;  // most samples first; ties in first-seen order
  };

  explicit SampleTable(uint64_t budget_bytes = kDefaultBudgetBytes) : budget_(budget_bytes) {}
  void Add(pid_t tid, const std::string& name, SampleRow row);

  // Threads with samples, by tid (pointing into this table).
  std::vector<Thread> Threads() const;
  uint64_t total_samples() const { return total_; }
  uint64_t failed_samples() const { return failed_; }
  uint64_t bytes_kept() const { return used_; }

 private:
  // Counts the row's trace id in `entry` (bounded by kMaxTraceIds and the budget).
  void CountTrace(Entry* entry, const SampleRow& row);
  struct PerThread {
    std::string name;
    uint64_t samples = 0;
    std::vector<Entry> rows;
    std::unordered_map<std::string, size_t> index;  // identity -> rows[i]
    std::optional<size_t> other;
  };
  std::map<pid_t, PerThread> threads_;
  uint64_t budget_, used_ = 0, total_ = 0, failed_ = 0;
};

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_SAMPLE_TABLE_H_
