#include "commands.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace customlabels::reader {

int Report(const Failure& f) {
  std::fprintf(stderr, "customlabels: %s\n", f.message.c_str());
  return f.exit;
}

bool DeniedTracing(const ThreadStopper& stopper, bool held_any) {
  return stopper.error_number() == EPERM && !held_any;
}

int NotPermitted(pid_t pid, const std::string& detail) {
  return Report({kNotPermitted, "not permitted to ptrace process " + std::to_string(pid) + " (" +
                                    detail +
                                    "): run as root or with CAP_SYS_PTRACE, or lower "
                                    "/proc/sys/kernel/yama/ptrace_scope"});
}

std::vector<pid_t> SelectThreads(const Options& o, pid_t pid, Failure* f) {
  std::vector<pid_t> all = ListThreads(pid);
  if (!o.tid) return all;
  if (std::find(all.begin(), all.end(), *o.tid) == all.end()) {
    f->exit = kNoProcess;
    f->message = "no thread " + std::to_string(*o.tid) + " in process " + std::to_string(pid);
    return {};
  }
  return {*o.tid};
}

}  // namespace customlabels::reader
