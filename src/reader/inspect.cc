// `customlabels inspect`: each thread's current labels (and OpenTelemetry
// context), read once, after the process context; with --json also what
// each known reader sees (reader_sights.h), with --as NAME the labels as
// that reader's lookup finds them.
#include <cstdio>

#include "commands.h"
#include "process_context.h"
#include "reader_sights.h"
#include "report.h"

namespace customlabels::reader {

int RunInspect(const Options& o) {
  const pid_t pid = std::stoi(o.target);
  Failure f;
  const std::optional<AbiTarget> t = LocateAbi(pid, &f);
  if (!t) return Report(f);
  const std::vector<pid_t> tids = SelectThreads(o, pid, &f);
  if (f.exit != kOk) return Report(f);
  const std::optional<ProcessContext> context = ReadLiveProcessContext(pid);
  const ProcessContext* c = context ? &*context : nullptr;
  // The Parca agent's setup, read from the files before any thread is held.
  std::optional<ParcaSetup> parca;
  if (o.json || o.as != nullptr) parca = SetUpParca(pid, t->base, ProcessMemory(pid));
  ReadPlan plan;
  plan.parca = parca ? &*parca : nullptr;
  if (!o.json) {
    std::fputs(InspectHeader(pid, *t).c_str(), stdout);
    if (context) {
      std::fputs(TextProcessContext(*context).c_str(), stdout);
    } else if (t->otel_exported) {
      std::fputs("process context: none (no OTEL_CTX mapping)\n", stdout);
    }
  }
  bool first = true;
  bool held_any = false;
  size_t read = 0, failed = 0;
  for (pid_t tid : tids) {
    ThreadStopper stopper(tid);
    if (!stopper.Stop()) {
      if (DeniedTracing(stopper, held_any)) return NotPermitted(pid, stopper.error());
      continue;  // the thread exited meanwhile
    }
    held_any = true;
    const ThreadRead r = ReadThread(*t, &stopper, o.limits, &plan);
    stopper.Detach();
    if (!r.set.ok() && ThreadState(pid, tid) == 0) continue;  // gone mid-read
    ++read;
    if (!r.set.ok()) ++failed;
    const std::vector<ReaderSight> sights = ThreadSights(r, c);
    ThreadView view = MakeThreadView(tid, ThreadName(pid, tid), SetSeenBy(r, o.as), o.profile);
    if (o.as != nullptr) {
      const ReaderSight& s = SightOf(sights, o.as->id);
      view.as = o.as->name;
      view.as_note = std::string("as ") + o.as->display + " sees it: " +
                     (s.sees ? "through " + s.via : s.why);
    }
    view.via = r.via;
    view.walk = r.walk;
    view.walk_set = r.walk_set;
    if (r.otel && ShowsOtel(*r.otel)) view.otel = MakeOtelView(*r.otel, c);
    if (o.json) {
      view.readers = JsonSights(sights, r);
      view.held = std::make_pair(r.held_reads, r.held_us);
    }
    if (first && context) view.process_context = &*context;
    first = false;
    std::fputs((o.json ? JsonThread(view) : TextThread(view)).c_str(), stdout);
  }
  std::fflush(stdout);
  if (read != 0 && failed == read) {
    return Report({kUnreadable, "no thread's label set could be read"});
  }
  return kOk;
}

}  // namespace customlabels::reader
