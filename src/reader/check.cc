// `customlabels check`: an addon file, or a running process, against the ABI
// (and the OpenTelemetry thread and process contexts, when present).
#include <cerrno>
#include <cstdio>

#include "commands.h"
#include "elf_checks.h"
#include "format.h"
#include "node_checks.h"
#include "otel_checks.h"
#include "process_context.h"
#include "reader_verdicts.h"
#include "report.h"
#include "writers.h"

namespace customlabels::reader {

namespace {

struct Checks {
  bool ok = true;
  bool quiet = false;  // check --readers --json prints the verdicts alone
  void Line(bool pass, const std::string& what) {
    if (!quiet) std::printf("  %s %s\n", pass ? "ok  " : "FAIL", what.c_str());
    ok = ok && pass;
  }
  void Info(const std::string& what) {
    if (!quiet) std::printf("  info %s\n", what.c_str());
  }
  void Lines(const std::vector<CheckLine>& lines) {
    for (const CheckLine& l : lines) {
      if (l.info) {
        Info(l.text);
      } else {
        Line(l.pass, l.text);
      }
    }
  }
};

bool Exports(const std::vector<CheckLine>& otel_lines) {
  return !(otel_lines.size() == 1 && otel_lines[0].info);
}

}  // namespace

int RunCheck(const Options& o) {
  pid_t pid;
  Checks c;
  if (!ParsePid(o.target, &pid)) {
    std::string error;
    const std::optional<ElfFile> elf = ElfFile::Open(o.target, &error);
    if (!elf) return Report({kUnreadable, error});
    std::printf("%s:\n", o.target.c_str());
    c.Lines(CheckElf(*elf, o.target));
    const std::vector<CheckLine> otel = CheckOtelElf(*elf);
    c.Lines(otel);
    c.Lines(CheckNodeElf(*elf));
    std::printf(
        "%s%s\n",
        c.ok ? "the file follows the Custom Label ABI v1" : "the file does not follow the ABI",
        c.ok && Exports(otel) ? " and exports otel_thread_ctx_v1 as OTEP 4947 says" : "");
    return c.ok ? kOk : kProblems;
  }
  Failure f;
  const std::optional<AbiTarget> t = LocateAbi(pid, &f);
  if (!t && (f.exit == kNoProcess || f.exit == kNotPermitted || f.exit == kNotLoaded)) {
    return Report(f);
  }
  if (o.json && !t) return Report(f);
  c.quiet = o.json;
  if (!c.quiet) std::printf("process %d:\n", pid);
  bool otel_checked = false;
  if (t) {
    std::string error;
    std::optional<ElfFile> elf = ElfFile::Open(t->path, &error);
    if (elf) {
      c.Lines(CheckElf(*elf, t->path));
      c.Lines(CheckOtelElf(*elf));
      c.Lines(CheckNodeElf(*elf));
    }
    c.Line(true, "custom_labels_abi_version is 1 in the process");
    c.Line(t->current_set.static_tls,
           "the TLS descriptor resolved to " + TlsDescription(*t) +
               (t->current_set.static_tls
                    ? ""
                    : ": readers that assume static TLS (the Parca agent) see nothing"));
    if (t->otel) {
      c.Line(t->otel->static_tls, std::string("the ") + kOtelSymbol +
                                      " TLS descriptor resolved to " + TlsDescription(*t->otel) +
                                      (t->otel->static_tls ? "" : ": eBPF readers see nothing"));
    } else if (t->otel_exported) {
      c.Line(false, std::string(kOtelSymbol) + " can be reached: " + t->otel_error);
    }
    if (t->node) {
      c.Line(t->node->static_tls, std::string("the ") + kNodeSymbol + " TLS descriptor resolved to " +
                                      TlsDescription(*t->node) +
                                      (t->node->static_tls ? "" : ": eBPF readers see nothing"));
    } else if (t->node_exported) {
      c.Line(false, std::string(kNodeSymbol) + " can be reached: " + t->node_error);
    }
    ThreadStopper main_thread(pid);
    if (!main_thread.Stop()) {
      if (main_thread.error_number() == EPERM) return NotPermitted(pid, main_thread.error());
    } else {
      const ThreadRead r = ReadThread(*t, &main_thread, o.limits);
      main_thread.Detach();
      c.Line(r.set.ok(),
             "the main thread's custom_labels_current_set is readable" +
                 (!r.set.ok()           ? ": " + r.set.error
                  : r.via == "node-walk" ? " (NULL: no hooks; the Node.js walk found set " +
                                               Hex(r.set.address) + ")"
                                         : " (set " + Hex(r.set.address) + ")"));
      if (r.otel) {
        const OtelRecord& rec = *r.otel;
        const bool slot_read = rec.has_context() || rec.ok();
        c.Line(slot_read,
               std::string("the main thread's ") + kOtelSymbol + " is readable" +
                   (!slot_read           ? ": " + rec.error
                    : !rec.has_context() ? " (NULL: no context)"
                    : rec.ok()           ? " (record " + Hex(rec.address) + ")"
                               : " (record " + Hex(rec.address) + ", ignored: " + rec.error + ")"));
      }
    }
    otel_checked = t->otel_exported;
  } else {
    c.Line(false, f.message);
  }
  const std::optional<ProcessContext> context = ReadLiveProcessContext(pid);
  const ProcessContext* pc = context ? &*context : nullptr;
  std::string readers;  // check --readers: printed after the verdict on the ABI
  if (t && (t->node || o.readers)) {
    // Every thread, each stopped while it is read: the gates of the walk,
    // and what each known reader sees.
    std::optional<ParcaSetup> parca;
    if (o.readers) parca = SetUpParca(pid, t->base, ProcessMemory(pid));
    ReadPlan plan;
    plan.parca = parca ? &*parca : nullptr;
    // Other writers of the same symbols: each other module's copy of
    // otel_thread_ctx_nodejs_v1 is walked on every thread too.
    std::string maps_error;
    ProcessWriters writers;
    if (parca) writers = FindWriters(pid, ReadMappings(pid, &maps_error));
    plan.other_node = OtherNodeCopies(writers);
    std::vector<NodeThreadWalk> walks;
    std::vector<std::pair<pid_t, ThreadRead>> reads;
    for (pid_t tid : ListThreads(pid)) {
      ThreadStopper stopper(tid);
      if (!stopper.Stop()) continue;  // exited meanwhile
      ThreadRead r = ReadThread(*t, &stopper, o.limits, &plan);
      stopper.Detach();
      NodeThreadWalk w;
      w.tid = tid;
      w.walk.status = r.walk;
      w.walk.words = r.walk_words;
      walks.push_back(std::move(w));
      reads.emplace_back(tid, std::move(r));
    }
    if (t->node) c.Lines(CheckNodeThreads(walks, pc));
    if (parca) {
      std::vector<ReadThreadOf> threads;
      std::vector<const ThreadRead*> thread_reads;
      for (const auto& [tid, r] : reads) {
        threads.push_back({tid, &r});
        thread_reads.push_back(&r);
      }
      CountCopies(thread_reads, &writers);
      const ProcessMode mode = ModeOf(threads, pc);
      std::vector<ReaderVerdict> verdicts = Verdicts(*t, *parca, pc, threads);
      // What each reader's own rule makes of the other writers.
      AmendVerdicts(writers, mode, &verdicts);
      if (o.json) {
        readers = JsonVerdicts(*parca, mode, verdicts);
        // {"writers":{..}, ...the verdicts' fields}
        if (!readers.empty() && readers[0] == '{') readers = "{\"writers\":" + JsonWriters(writers) + "," + readers.substr(1);
      } else {
        readers = TextWriters(writers) + TextVerdicts(*parca, mode, verdicts);
      }
    }
  }
  if (context) {
    c.Lines(CheckProcessContext(*context));
  } else if (otel_checked) {
    c.Line(false,
           "a process context mapping (/memfd:OTEL_CTX, [anon_shmem:OTEL_CTX] or "
           "[anon:OTEL_CTX]): none, so thread attributes have no keys");
  } else {
    c.Info("no OpenTelemetry process context (no OTEL_CTX mapping)");
  }
  if (!c.quiet) {
    std::printf(
        "%s%s\n",
        c.ok ? "the process exposes labels as the Custom Label ABI v1 says" : "problems found",
        c.ok && (otel_checked || context)
            ? ", and its OpenTelemetry context as OTEPs 4947 and 4719 say"
            : "");
  }
  std::fputs(readers.c_str(), stdout);
  return c.ok ? kOk : (t ? kProblems : f.exit);
}

}  // namespace customlabels::reader
