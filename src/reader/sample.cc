// `customlabels sample`: interrupts the on-CPU threads at --hz for
// --duration and counts what their sets (and OpenTelemetry contexts,
// keyed through the process context read once at the start) showed. SIGINT, SIGTERM and SIGHUP
// end it early with what it has, and so does the death of the `customlabels` wrapper that
// started it (it names itself in CUSTOMLABELS_WRAPPER_PID): a reader never outlives it holding
// threads.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <thread>
#include <utility>

#include "commands.h"
#include "process_context.h"
#include "reader_sights.h"
#include "report.h"
#include "sample_table.h"

namespace customlabels::reader {

namespace {

std::atomic<bool> g_interrupted{false};

void StopOnSignals() {
  struct sigaction sa {};
  sa.sa_handler = [](int) { g_interrupted = true; };
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  const char* wrapper = std::getenv("CUSTOMLABELS_WRAPPER_PID");
  if (wrapper != nullptr && std::to_string(getppid()) == wrapper) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (std::to_string(getppid()) != wrapper) g_interrupted = true;  // it died before prctl
  }
}

}  // namespace

int RunSample(const Options& o) {
  StopOnSignals();
  const pid_t pid = std::stoi(o.target);
  Failure f;
  const std::optional<AbiTarget> t = LocateAbi(pid, &f);
  if (!t) return Report(f);
  std::vector<pid_t> tids = SelectThreads(o, pid, &f);
  if (f.exit != kOk) return Report(f);
  const std::optional<ProcessContext> context = ReadLiveProcessContext(pid);
  const AttributeKeyMap* key_map =
      context && context->ok() && context->key_map ? &*context->key_map : nullptr;
  // --as parca: the Parca agent's lookup, set up from the files first.
  std::optional<ParcaSetup> parca;
  if (o.as != nullptr && o.as->id == KnownReaderId::kParca) {
    parca = SetUpParca(pid, t->base, ProcessMemory(pid));
  }

  struct Held {
    std::unique_ptr<ThreadStopper> stopper;
    std::string name;
    bool gone = false;
  };
  std::map<pid_t, Held> held;
  SampleTable table;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  const auto period = std::chrono::duration<double>(1.0 / o.hz);
  std::mt19937_64 rng(static_cast<uint64_t>(getpid()) ^
                      static_cast<uint64_t>(start.time_since_epoch().count()));
  std::uniform_real_distribution<double> jitter(0.75, 1.25);  // no aliasing with periodic work
  auto next = start;
  auto refreshed = start;
  bool held_any = false;
  uint64_t ticks = 0, late_ticks = 0;
  bool late = false;  // the coming tick is taken late
  while (!g_interrupted && Clock::now() < end) {
    ++ticks;
    if (late) ++late_ticks;
    late = false;
    if (!o.tid && Clock::now() - refreshed > std::chrono::milliseconds(100)) {
      tids = ListThreads(pid);
      refreshed = Clock::now();
      if (tids.empty()) break;  // the process exited
    }
    ReadPlan plan;  // each tick is one pass over the process
    plan.parca = parca ? &*parca : nullptr;
    for (pid_t tid : tids) {
      if (ThreadState(pid, tid) != 'R') continue;  // sample on-CPU threads only
      Held& h = held[tid];
      if (h.gone) continue;
      if (!h.stopper) {
        h.stopper = std::make_unique<ThreadStopper>(tid);
        h.name = ThreadName(pid, tid);
      }
      if (!h.stopper->Stop()) {
        if (DeniedTracing(*h.stopper, held_any)) return NotPermitted(pid, h.stopper->error());
        h.gone = true;
        continue;
      }
      held_any = true;
      const ThreadRead r = ReadThread(*t, h.stopper.get(), o.limits, &plan);
      h.stopper->Detach();  // attached only while read: signals flow freely
      if (!r.set.ok() && ThreadState(pid, tid) == 0) continue;  // gone mid-read
      SampleRow row = MakeSampleRow(SetSeenBy(r, o.as), o.profile, o.by);
      if (r.otel && !o.by) AddOtelSample(&row, *r.otel, key_map);
      table.Add(tid, h.name, std::move(row));
    }
    next += std::chrono::duration_cast<Clock::duration>(period * jitter(rng));
    // A reader that lost the CPU does not fire its missed ticks back to back
    // (they would all see the same label set): it starts again from now, and
    // counts the tick late (the run says how many: a window in which the
    // reader was starved samples in bursts).
    const auto now = Clock::now();
    if (next < now) {
      next = now;
      late = true;
    }
    std::this_thread::sleep_until(next);
  }
  held.clear();  // detach
  SampleRun run;
  run.pid = pid;
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  run.hz = o.hz;
  run.ticks = ticks;
  run.late_ticks = late_ticks;
  run.tls = TlsDescription(*t);
  run.by = o.by;
  if (!o.json) {
    std::fputs(SampleHeader(run, table).c_str(), stdout);
    if (context) std::fputs(TextProcessContext(*context).c_str(), stdout);
  }
  if (context) run.process_context = &*context;  // on the first JSON row
  for (const SampleTable::Thread& th : table.Threads()) {
    std::fputs((o.json ? JsonSampleThread(run, th) : TextSampleThread(run, th)).c_str(), stdout);
  }
  std::fflush(stdout);
  if (table.total_samples() != 0 && table.failed_samples() == table.total_samples()) {
    return Report({kUnreadable, "no sample could read a label set"});
  }
  return kOk;
}

}  // namespace customlabels::reader
