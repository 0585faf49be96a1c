// `customlabels check`: an addon file, or a running process, against the ABI.
#include <cerrno>
#include <cstdio>

#include "commands.h"
#include "elf_checks.h"
#include "format.h"
#include "report.h"

namespace customlabels::reader {

namespace {

struct Checks {
  bool ok = true;
  void Line(bool pass, const std::string& what) {
    std::printf("  %s %s\n", pass ? "ok  " : "FAIL", what.c_str());
    ok = ok && pass;
  }
  void Lines(const std::vector<CheckLine>& lines) {
    for (const CheckLine& l : lines) Line(l.pass, l.text);
  }
};

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
    std::printf("%s\n", c.ok ? "the file follows the Custom Label ABI v1"
                             : "the file does not follow the ABI");
    return c.ok ? kOk : kProblems;
  }
  Failure f;
  const std::optional<AbiTarget> t = LocateAbi(pid, &f);
  if (!t && (f.exit == kNoProcess || f.exit == kNotPermitted || f.exit == kNotLoaded)) {
    return Report(f);
  }
  std::printf("process %d:\n", pid);
  if (t) {
    std::string error;
    std::optional<ElfFile> elf = ElfFile::Open(t->path, &error);
    if (elf) c.Lines(CheckElf(*elf, t->path));
    c.Line(true, "custom_labels_abi_version is 1 in the process");
    c.Line(t->static_tls,
           "the TLS descriptor resolved to " + TlsDescription(*t) +
               (t->static_tls ? ""
                              : ": readers that assume static TLS (the Parca agent) see nothing"));
    ThreadStopper main_thread(pid);
    if (!main_thread.Stop()) {
      if (main_thread.error_number() == EPERM) return NotPermitted(pid, main_thread.error());
    } else {
      const ThreadRead r = ReadThread(*t, &main_thread, o.limits);
      main_thread.Detach();
      c.Line(r.set.ok(),
             "the main thread's custom_labels_current_set is readable" +
                 (r.set.ok() ? " (set " + Hex(r.set.address) + ")" : ": " + r.set.error));
    }
  } else {
    c.Line(false, f.message);
  }
  std::printf("%s\n", c.ok ? "the process exposes labels as the Custom Label ABI v1 says"
                           : "problems found");
  return c.ok ? kOk : (t ? kProblems : f.exit);
}

}  // namespace customlabels::reader
