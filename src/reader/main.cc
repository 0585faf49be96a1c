// customlabels: reads the labels a live process exposes through the Custom
// Label ABI v1, the way eBPF profilers do. See `customlabels --help`.
#include <elf.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "abi_reader.h"
#include "elf_file.h"
#include "format.h"
#include "process.h"

namespace customlabels::reader {
namespace {

constexpr const char* kUsageText =
    "usage: customlabels inspect <pid> [--tid TID] [--json] [--reader-limits parca]\n"
    "       customlabels sample <pid> [--hz 99] [--duration 10s] [--by KEY] [--tid TID]\n"
    "                           [--json] [--reader-limits parca]\n"
    "       customlabels check <addon-file | pid>\n"
    "\n"
    "inspect  the labels each thread's custom_labels_current_set shows right now\n"
    "sample   interrupt the on-CPU threads at --hz for --duration and show the share\n"
    "         of samples per label set (or per value of --by KEY), per thread\n"
    "check    validate an addon file or a running process against the ABI\n"
    "\n"
    "--json                one JSON object per line; bytes that are not UTF-8 are\n"
    "                      written as \\udcXX (surrogateescape)\n"
    "--reader-limits parca show what the Parca eBPF agent keeps (10 slots, keys 25\n"
    "                      bytes, values 53 bytes); by default everything is shown\n"
    "                      and what that agent would cut is flagged\n"
    "exit codes: 0 ok, 1 check found problems, 2 usage, 3 no such process or thread,\n"
    "            4 not permitted to ptrace, 5 addon not loaded, 6 ABI mismatch,\n"
    "            7 unreadable memory\n";

struct Options {
  std::string command, target;
  std::optional<pid_t> tid;
  bool json = false, parca = false;
  double hz = 99;
  double seconds = 10;
  std::optional<std::string> by;
};

int Usage(const std::string& message) {
  if (!message.empty()) std::fprintf(stderr, "customlabels: %s\n", message.c_str());
  std::fputs(kUsageText, stderr);
  return kUsage;
}

bool ParsePid(const std::string& s, pid_t* out) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
    return false;
  *out = std::stoi(s);
  return *out > 0;
}

// "10s", "500ms", "2m", "1.5" (seconds)
bool ParseDuration(const std::string& s, double* seconds) {
  static const std::regex re(R"(^([0-9]+(\.[0-9]+)?)(ms|s|m)?$)");
  std::smatch m;
  if (!std::regex_match(s, m, re)) return false;
  const double v = std::stod(m[1]);
  *seconds = m[3] == "ms" ? v / 1000 : m[3] == "m" ? v * 60 : v;
  return *seconds > 0;
}

std::optional<Options> Parse(int argc, char** argv, int* exit) {
  Options o;
  std::vector<std::string> args(argv + 1, argv + argc);
  auto fail = [exit](const std::string& m) {
    *exit = Usage(m);
    return std::nullopt;
  };
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsageText, stdout);
    *exit = kOk;
    return std::nullopt;
  }
  o.command = args[0];
  if (o.command != "inspect" && o.command != "sample" && o.command != "check") {
    return fail("unknown command '" + o.command + "'");
  }
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* name) -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      (void)name;
      return args[++i];
    };
    if (a == "--json") {
      o.json = true;
    } else if (a == "--tid") {
      auto v = value("--tid");
      pid_t tid;
      if (!v || !ParsePid(*v, &tid)) return fail("--tid needs a thread id");
      o.tid = tid;
    } else if (a == "--reader-limits") {
      auto v = value("--reader-limits");
      if (!v || *v != "parca") return fail("--reader-limits takes 'parca'");
      o.parca = true;
    } else if (a == "--hz") {
      auto v = value("--hz");
      char* end = nullptr;
      o.hz = v ? std::strtod(v->c_str(), &end) : 0;
      if (!v || *end != '\0' || !(o.hz >= 1 && o.hz <= 10000)) return fail("--hz takes 1 to 10000");
    } else if (a == "--duration") {
      auto v = value("--duration");
      if (!v || !ParseDuration(*v, &o.seconds)) return fail("--duration takes e.g. 10s, 500ms, 2m");
    } else if (a == "--by") {
      auto v = value("--by");
      if (!v || v->empty()) return fail("--by needs a label key");
      o.by = *v;
    } else if (!a.empty() && a[0] == '-') {
      return fail("unknown option '" + a + "'");
    } else if (o.target.empty()) {
      o.target = a;
    } else {
      return fail("unexpected argument '" + a + "'");
    }
  }
  if (o.target.empty())
    return fail(o.command + " needs a " + (o.command == "check" ? "file or pid" : "pid"));
  if (o.command != "sample" && (o.by || o.hz != 99 || o.seconds != 10)) {
    return fail("--hz, --duration and --by are options of sample");
  }
  return o;
}

int Report(const Failure& f) {
  std::fprintf(stderr, "customlabels: %s\n", f.message.c_str());
  return f.exit;
}

// Whether a failed Stop() means the reader may not trace the process. The
// kernel also answers EPERM for a thread that is exiting, so once some
// thread of the process was held, EPERM only means that thread is gone.
bool DeniedTracing(const ThreadStopper& stopper, bool held_any) {
  return stopper.error_number() == EPERM && !held_any;
}

int NotPermitted(pid_t pid, const std::string& detail) {
  return Report({kNotPermitted, "not permitted to ptrace process " + std::to_string(pid) + " (" +
                                    detail +
                                    "): run as root or with CAP_SYS_PTRACE, or lower "
                                    "/proc/sys/kernel/yama/ptrace_scope"});
}

std::string TlsDescription(const AbiTarget& t) {
  char buf[160];
  if (t.static_tls) {
    std::snprintf(buf, sizeof(buf), "static TLS, thread pointer %+lld",
                  static_cast<long long>(static_cast<int64_t>(t.argument)));
  } else {
    std::snprintf(buf, sizeof(buf), "dynamic TLS (module %llu, offset 0x%llx, via the DTV)",
                  static_cast<unsigned long long>(t.dyn_module),
                  static_cast<unsigned long long>(t.dyn_offset));
  }
  return buf;
}

std::string HexAddress(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::vector<pid_t> Threads(const Options& o, pid_t pid, Failure* f) {
  std::vector<pid_t> all = ListThreads(pid);
  if (!o.tid) return all;
  if (std::find(all.begin(), all.end(), *o.tid) == all.end()) {
    f->exit = kNoProcess;
    f->message = "no thread " + std::to_string(*o.tid) + " in process " + std::to_string(pid);
    return {};
  }
  return {*o.tid};
}

int Inspect(const Options& o, pid_t pid) {
  Failure f;
  const std::optional<AbiTarget> t = LocateAbi(pid, &f);
  if (!t) return Report(f);
  const std::vector<pid_t> tids = Threads(o, pid, &f);
  if (f.exit != kOk) return Report(f);
  if (!o.json) {
    std::printf("process %d: %s (ABI v%u, %s)\n", pid, t->path.c_str(), t->version,
                TlsDescription(*t).c_str());
  }
  bool held_any = false;
  for (pid_t tid : tids) {
    ThreadStopper stopper(tid);
    if (!stopper.Stop()) {
      if (DeniedTracing(stopper, held_any)) return NotPermitted(pid, stopper.error());
      continue;  // the thread exited meanwhile
    }
    held_any = true;
    const ThreadRead r = ReadThread(*t, tid, &stopper);
    stopper.Detach();
    if (!r.ok) {
      if (ThreadState(pid, tid) == 0) continue;  // gone mid-read
      return Report({kUnreadable, "thread " + std::to_string(tid) + ": " + r.error});
    }
    const std::vector<Label> labels = o.parca ? ParcaView(r.slots) : AbiView(r.slots);
    const std::vector<Label>* shown = r.set_address == 0 ? nullptr : &labels;
    const std::vector<std::string> notes =
        o.parca ? std::vector<std::string>{} : ParcaNotes(r.slots);
    const std::string name = ThreadName(pid, tid);
    if (o.json) {
      std::string line = "{\"tid\":" + std::to_string(tid) + ",\"name\":" + JsonString(name) +
                         ",\"labels\":" + JsonLabels(shown) + ",\"set\":\"" +
                         HexAddress(r.set_address) + "\"";
      if (!notes.empty()) {
        line += ",\"parca\":[";
        for (size_t i = 0; i < notes.size(); ++i) line += (i ? "," : "") + JsonString(notes[i]);
        line += "]";
      }
      std::printf("%s}\n", line.c_str());
    } else {
      std::printf("  %-8d %-16s %s\n", tid, TextString(name).c_str(), TextLabels(shown).c_str());
      for (const std::string& n : notes)
        std::printf("  %-8s %-16s ! Parca agent: %s\n", "", "", n.c_str());
    }
  }
  std::fflush(stdout);
  return kOk;
}

std::atomic<bool> g_interrupted{false};

int Sample(const Options& o, pid_t pid) {
  Failure f;
  const std::optional<AbiTarget> t = LocateAbi(pid, &f);
  if (!t) return Report(f);
  std::vector<pid_t> tids = Threads(o, pid, &f);
  if (f.exit != kOk) return Report(f);
  struct sigaction sa {};
  sa.sa_handler = [](int) { g_interrupted = true; };
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);

  struct Row {
    uint64_t samples = 0;
    std::vector<Label> labels;
    bool null = true;
  };
  struct PerThread {
    std::unique_ptr<ThreadStopper> stopper;
    std::string name;
    uint64_t samples = 0;
    std::map<std::string, Row> rows;  // keyed by the JSON of the row's labels
    bool gone = false;
  };
  std::map<pid_t, PerThread> threads;
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
  uint64_t rounds = 0;
  bool held_any = false;
  while (!g_interrupted && Clock::now() < end) {
    if (!o.tid && Clock::now() - refreshed > std::chrono::milliseconds(100)) {
      tids = ListThreads(pid);
      refreshed = Clock::now();
      if (tids.empty()) break;  // the process exited
    }
    ++rounds;
    for (pid_t tid : tids) {
      if (ThreadState(pid, tid) != 'R') continue;  // sample on-CPU threads only
      PerThread& th = threads[tid];
      if (th.gone) continue;
      if (!th.stopper) {
        th.stopper = std::make_unique<ThreadStopper>(tid);
        th.name = ThreadName(pid, tid);
      }
      if (!th.stopper->Stop()) {
        if (DeniedTracing(*th.stopper, held_any)) return NotPermitted(pid, th.stopper->error());
        th.gone = true;
        continue;
      }
      held_any = true;
      const ThreadRead r = ReadThread(*t, tid, th.stopper.get());
      th.stopper->Detach();  // attached only while read: signals flow freely
      if (!r.ok) continue;
      std::vector<Label> labels = o.parca ? ParcaView(r.slots) : AbiView(r.slots);
      Row row;
      row.null = r.set_address == 0;
      if (o.by) {
        row.null = true;
        for (const Label& l : labels) {
          if (l.key == *o.by) {
            row.labels = {l};
            row.null = false;
          }
        }
      } else {
        row.labels = std::move(labels);
      }
      const std::string key = row.null ? "null" : JsonLabels(&row.labels);
      Row& slot = th.rows[key];
      if (slot.samples == 0) slot = row;
      ++slot.samples;
      ++th.samples;
    }
    next += std::chrono::duration_cast<Clock::duration>(period * jitter(rng));
    std::this_thread::sleep_until(next);
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  uint64_t total = 0;
  size_t sampled_threads = 0;
  for (auto& [tid, th] : threads) {
    th.stopper.reset();  // detach
    total += th.samples;
    if (th.samples != 0) ++sampled_threads;
  }
  if (!o.json) {
    std::printf("sampled process %d for %.1f s at %g Hz: %llu on-CPU samples in %zu threads (%s)\n",
                pid, elapsed, o.hz, static_cast<unsigned long long>(total), sampled_threads,
                TlsDescription(*t).c_str());
  }
  for (auto& [tid, th] : threads) {
    if (th.samples == 0) continue;
    std::vector<const Row*> rows;
    for (const auto& [key, row] : th.rows) rows.push_back(&row);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row* a, const Row* b) { return a->samples > b->samples; });
    if (!o.json) {
      std::printf("\nthread %d (%s): %llu samples\n  %7s %8s  %s\n", tid,
                  TextString(th.name).c_str(), static_cast<unsigned long long>(th.samples), "share",
                  "samples", o.by ? o.by->c_str() : "labels");
    }
    for (const Row* row : rows) {
      const double share = static_cast<double>(row->samples) / static_cast<double>(th.samples);
      if (o.json) {
        std::string line = "{\"tid\":" + std::to_string(tid) + ",\"name\":" + JsonString(th.name) +
                           ",\"samples\":" + std::to_string(row->samples) +
                           ",\"thread_samples\":" + std::to_string(th.samples) +
                           ",\"share\":" + std::to_string(share);
        if (o.by) {
          line += ",\"key\":" + JsonString(*o.by) + ",\"value\":" +
                  (row->null ? std::string("null") : JsonString(row->labels[0].value));
        } else {
          line += ",\"labels\":" + JsonLabels(row->null ? nullptr : &row->labels);
        }
        std::printf("%s}\n", line.c_str());
      } else {
        std::string what =
            o.by ? (row->null ? "(no " + TextString(*o.by) + ")" : TextString(row->labels[0].value))
                 : (row->null ? "(no labels)" : TextLabels(&row->labels));
        std::printf("  %6.1f%% %8llu  %s\n", share * 100,
                    static_cast<unsigned long long>(row->samples), what.c_str());
      }
    }
  }
  std::fflush(stdout);
  (void)rounds;
  return kOk;
}

struct Checks {
  bool ok = true;
  void Line(bool pass, const std::string& what) {
    std::printf("  %s %s\n", pass ? "ok  " : "FAIL", what.c_str());
    ok = ok && pass;
  }
};

void CheckElf(const ElfFile& elf, const std::string& name, Checks* c) {
  static const std::regex re(R"(libcustomlabels.*\.so$|customlabels\.node$)");
  c->Line(std::regex_search(name, re),
          "file name matches libcustomlabels.*\\.so$|customlabels\\.node$ (" + name + ")");
  c->Line(elf.machine() == EM_X86_64 || elf.machine() == EM_AARCH64,
          std::string("machine is x86-64 or aarch64 (") + MachineName(elf.machine()) + ")");
  const ElfSymbol* v = elf.FindDynamicSymbol("custom_labels_abi_version");
  uint32_t value = 0;
  const bool readable = v != nullptr && elf.ReadVaddr(v->value, &value, sizeof(value));
  c->Line(v != nullptr && v->type == STT_OBJECT && v->size == 4 && v->bind == STB_GLOBAL &&
              v->visibility == STV_DEFAULT,
          ".dynsym has custom_labels_abi_version: global default-visibility OBJECT of 4 bytes" +
              std::string(v == nullptr ? " (missing: hidden or not defined?)"
                                       : " (size " + std::to_string(v->size) + ")"));
  c->Line(readable && value == 1,
          "custom_labels_abi_version is 1 in the file" +
              (readable ? " (" + std::to_string(value) + ")" : std::string(" (unreadable)")));
  const ElfSymbol* s = elf.FindDynamicSymbol("custom_labels_current_set");
  c->Line(s != nullptr && s->type == STT_TLS && s->size == 8 && s->bind == STB_GLOBAL &&
              s->visibility == STV_DEFAULT,
          ".dynsym has custom_labels_current_set: global default-visibility TLS symbol of 8 bytes" +
              std::string(s == nullptr ? " (missing: hidden by -fvisibility=hidden?)" : ""));
  c->Line(elf.FindTlsDescriptor("custom_labels_current_set") != nullptr,
          std::string("an R_") + (elf.machine() == EM_AARCH64 ? "AARCH64" : "X86_64") +
              "_TLSDESC relocation names custom_labels_current_set (build with -mtls-dialect=" +
              (elf.machine() == EM_AARCH64 ? "desc" : "gnu2") + ")");
  const uint64_t tls = elf.tls_size().value_or(0);
  c->Line(tls > 0 && tls <= 64, "PT_TLS is " + std::to_string(tls) +
                                    " bytes (keep thread-local storage to the one pointer so "
                                    "glibc's 512-byte surplus gives static TLS)");
}

int Check(const Options& o) {
  pid_t pid;
  Checks c;
  if (!ParsePid(o.target, &pid)) {
    std::string error;
    const std::optional<ElfFile> elf = ElfFile::Open(o.target, &error);
    if (!elf) return Report({kUnreadable, error});
    std::printf("%s:\n", o.target.c_str());
    CheckElf(*elf, o.target, &c);
    std::printf("%s\n", c.ok ? "the file follows the Custom Label ABI v1"
                             : "the file does not follow the ABI");
    return c.ok ? kOk : kProblems;
  }
  Failure f;
  const std::optional<AbiTarget> t = LocateAbi(pid, &f);
  if (!t && (f.exit == kNoProcess || f.exit == kNotPermitted || f.exit == kNotLoaded))
    return Report(f);
  std::printf("process %d:\n", pid);
  if (t) {
    std::string error;
    std::optional<ElfFile> elf = ElfFile::Open(t->path, &error);
    if (elf) CheckElf(*elf, t->path, &c);
    c.Line(true, "custom_labels_abi_version is 1 in the process");
    c.Line(t->static_tls,
           "the TLS descriptor resolved to " + TlsDescription(*t) +
               (t->static_tls ? ""
                              : ": readers that assume static TLS (the Parca agent) see nothing"));
    ThreadStopper main_thread(pid);
    if (!main_thread.Stop()) {
      if (main_thread.error_number() == EPERM) return NotPermitted(pid, main_thread.error());
    } else {
      const ThreadRead r = ReadThread(*t, pid, &main_thread);
      main_thread.Detach();
      c.Line(r.ok, "the main thread's custom_labels_current_set is readable" +
                       (r.ok ? " (set " + HexAddress(r.set_address) + ")" : ": " + r.error));
    }
  } else {
    c.Line(false, f.message);
  }
  std::printf("%s\n", c.ok ? "the process exposes labels as the Custom Label ABI v1 says"
                           : "problems found");
  return c.ok ? kOk : (t ? kProblems : f.exit);
}

int Main(int argc, char** argv) {
  int exit = kOk;
  const std::optional<Options> o = Parse(argc, argv, &exit);
  if (!o) return exit;
  if (o->command == "check") return Check(*o);
  pid_t pid;
  if (!ParsePid(o->target, &pid)) return Usage("'" + o->target + "' is not a pid");
  return o->command == "inspect" ? Inspect(*o, pid) : Sample(*o, pid);
}

}  // namespace
}  // namespace customlabels::reader

int main(int argc, char** argv) { return customlabels::reader::Main(argc, argv); }
