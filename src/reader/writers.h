// The writers of the standard thread-context symbols in a process (check
// --readers): every mapped module that exports custom_labels_abi_version,
// otel_thread_ctx_v1 or otel_thread_ctx_nodejs_v1 (customlabels.node, and
// others: @datadog/pprof 5.16+'s dd_pprof.node exports
// otel_thread_ctx_nodejs_v1), every OTEP 4719 process context mapping, and
// which of them each known reader uses by its own rule:
//   - the Parca agent: the module with custom_labels_abi_version whose file
//     name matches .*/customlabels\.node (or libcustomlabels*.so);
//   - OTEP 4947 readers (open-telemetry/opentelemetry-ebpf-profiler PR
//     #1229, interpreter/threadcontext): any module exporting
//     otel_thread_ctx_v1, one per process (a BPF map keyed by pid: the
//     module attached last wins);
//   - the Node.js design doc's walk (PR #1861): the same rule, for
//     otel_thread_ctx_nodejs_v1;
//   - every OpenTelemetry reader: the last OTEL_CTX mapping in
//     /proc/PID/maps (processinfo.go reassigns it per mapping; OTEP 4719
//     says there must not be two, and gives no tie-break).
#ifndef CUSTOMLABELS_READER_WRITERS_H_
#define CUSTOMLABELS_READER_WRITERS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "abi_reader.h"
#include "process.h"
#include "reader_verdicts.h"

namespace customlabels::reader {

struct ModuleWriter {
  std::string path;
  bool customlabels = false;  // its file name is the addon's
  bool abi_v1 = false;        // custom_labels_abi_version
  bool tls_v1 = false;        // otel_thread_ctx_v1
  bool nodejs_v1 = false;     // otel_thread_ctx_nodejs_v1
  // Another module's otel_thread_ctx_nodejs_v1: where each thread's copy is
  // (nullopt with `nodejs_error` when it cannot be reached), and what the
  // threads on which customlabels published its own held there
  // (CountCopies): customlabels' discovery (customlabels writes it into a
  // copy its module left empty, src/core/node_mirrors.h), the module's own,
  // or nothing.
  std::optional<TlsVariable> nodejs_tls;
  std::string nodejs_error;
  size_t published = 0, mirrored = 0, own = 0, empty = 0;
  // Threads on which the walk from this module's copy found a record (the
  // other writer's, where the copy is its own).
  size_t records = 0;
};

struct ProcessWriters {
  std::vector<ModuleWriter> modules;  // in /proc/PID/maps order
  std::vector<std::string> contexts;  // OTEL_CTX mappings, "path at 0x..", in maps order
  std::vector<std::string> unreadable;  // mapped files that could not be read
};

// From the process's mappings: each file-backed module once.
ProcessWriters FindWriters(pid_t pid, const std::vector<Mapping>& maps);

// The other modules' otel_thread_ctx_nodejs_v1 variables, for ReadPlan.
std::vector<const TlsVariable*> OtherNodeCopies(const ProcessWriters& writers);
// Counts, per such module, what each thread's copy held (`reads`: every
// thread's ThreadRead, read with OtherNodeCopies' plan).
void CountCopies(const std::vector<const ThreadRead*>& reads, ProcessWriters* writers);

// Amends `verdicts` where another writer decides what a reader uses: a
// reader that keeps one module per process (PR #1229's rule) among two or
// more exporters of its symbol (unless every other exporter of
// otel_thread_ctx_nodejs_v1 carries customlabels' discovery on every thread
// that published it: either pick walks customlabels' AsyncLocalStorage), two process contexts, or a process context
// that is not customlabels' (it says nodejs_v1_dev while every labelled
// thread has hooks: customlabels, with hooks, says tlsdesc_v1_dev, and
// publishes none where another writer published first).
void AmendVerdicts(const ProcessWriters& writers, const ProcessMode& mode, std::vector<ReaderVerdict>* verdicts);

// A text section ("writers of the standard symbols in this process: ..."),
// and its JSON ({"modules":[{"path":..,"symbols":[..]}],"contexts":[..]}).
std::string TextWriters(const ProcessWriters& writers);
std::string JsonWriters(const ProcessWriters& writers);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_WRITERS_H_
