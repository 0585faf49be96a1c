// What inspect and sample print, in text and JSON: pure functions of what
// was read, so the formats are unit tested without a process.
#ifndef CUSTOMLABELS_READER_REPORT_H_
#define CUSTOMLABELS_READER_REPORT_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "abi_reader.h"
#include "label_views.h"
#include "otel_report.h"
#include "reader_profiles.h"
#include "sample_table.h"

namespace customlabels::reader {

// "static TLS, thread pointer -440" or "dynamic TLS (module 2, ...)".
std::string TlsDescription(const TlsVariable& variable);
// That of custom_labels_current_set.
std::string TlsDescription(const AbiTarget& target);

// Everything inspect prints about one thread, whatever the format.
struct ThreadView {
  pid_t tid = 0;
  std::string name;
  bool set_known = false;  // the set pointer was read
  uint64_t set_address = 0;
  std::string error;          // non-empty: the set could not be read
  std::vector<Label> labels;  // the ABI's view, or the selected profile's
  Truncation truncation;
  std::vector<std::string> problems;
  uint64_t more_problems = 0;
  // Default view only: what each profiled reader would cut.
  std::vector<std::pair<const ReaderProfile*, std::vector<std::string>>> profile_notes;
  // The thread's OpenTelemetry context record, when it has one (or it could
  // not be read); nullopt otherwise, and when the addon has no
  // otel_thread_ctx_v1.
  std::optional<OtelView> otel;
  // The process's OpenTelemetry context: inspect --json puts it on its
  // first line only (nullptr on the others).
  const ProcessContext* process_context = nullptr;
  // The Node.js walk (node_walk.h), when the addon exports its struct: where
  // the labels came from ("tls" or "node-walk"), the walk's status and the
  // set it found (0: none). Empty `walk`: no such struct, nothing shown.
  std::string via;
  std::string walk;
  uint64_t walk_set = 0;
  // inspect --json: what each known reader sees ("readers", a JSON object
  // made by JsonSights; empty: left out) and what holding the thread took.
  std::string readers;
  std::optional<std::pair<uint64_t, uint64_t>> held;  // reads, microseconds
  // --as NAME: whose view `labels` is ("" the ABI's, as read), and a note
  // on how that reader came to it (what it read them through, or why none).
  std::string as;
  std::string as_note;
};

ThreadView MakeThreadView(pid_t tid, std::string name, const DecodedSet& set,
                          const ReaderProfile* selected);

// inspect --json: one line,
// {"tid":..,"name":..,"labels":{..}|null,"set":"0x..",["parca":[..],]
//  ["truncated":{..},]["problems":[..],]["error":".."]
//  [,"via":"tls"|"node-walk","walk":"<status>"[,"walk_set":"0x.."]][,"otel":{..}]
//  [,"readers":{..}][,"held":{"reads":N,"us":N}][,"as":"parca"]
//  [,"process_context":{..}]} ("labels" is left out when the set could not
// be read, "set" when its pointer could not, "otel" when the thread has no
// OpenTelemetry context, "process_context" but on the first line).
std::string JsonThread(const ThreadView& view);
// inspect: "process PID: PATH (ABI v1, TLS)" (and, when the addon exports
// it, "otel_thread_ctx_v1: TLS") ...
std::string InspectHeader(pid_t pid, const AbiTarget& target);
// ... then per thread "  TID  NAME  k=v k=v", and a "! ..." line for each
// truncation, problem, error and profile note, then the "otel ..." lines.
std::string TextThread(const ThreadView& view);

// The "truncated" object / the "! truncated: ..." lines (without indent).
std::string JsonTruncation(const Truncation& truncation);
std::vector<std::string> TruncationLines(const Truncation& truncation);

struct SampleRun {
  pid_t pid = 0;
  double seconds = 0, hz = 0;
  // The ticks the reader took, and those it took late (it had lost the CPU
  // past the tick's time).
  uint64_t ticks = 0, late_ticks = 0;
  std::string tls;  // TlsDescription
  std::optional<std::string> by;
  // Added to the first JSON row as "process_context" (then set to nullptr
  // by JsonSampleThread).
  mutable const ProcessContext* process_context = nullptr;
};
// The otel column of a sample row (empty when no sample of it had an
// OpenTelemetry context): " | otel ATTRIBUTES (N traces in M samples)".
std::string TextSampleOtel(const SampleTable::Entry& entry);
std::string SampleHeader(const SampleRun& run, const SampleTable& table);
// One JSON line per row of the thread.
std::string JsonSampleThread(const SampleRun& run, const SampleTable::Thread& thread);
// "thread TID (NAME): N samples", a header and one line per row.
std::string TextSampleThread(const SampleRun& run, const SampleTable::Thread& thread);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_REPORT_H_
