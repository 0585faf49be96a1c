// The three commands, each run against a live process (or, for check, a
// file), and what they share: reporting failures, the threads to read, and
// the rule that tells "not permitted" from "thread exiting".
#ifndef CUSTOMLABELS_READER_COMMANDS_H_
#define CUSTOMLABELS_READER_COMMANDS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "abi_reader.h"
#include "options.h"
#include "process.h"

namespace customlabels::reader {

int RunInspect(const Options& options);
int RunSample(const Options& options);
int RunCheck(const Options& options);

// Prints "customlabels: MESSAGE" to stderr and returns its exit code.
int Report(const Failure& failure);
// Exit 4 with what to do about it.
int NotPermitted(pid_t pid, const std::string& detail);
// Whether a failed Stop() means the reader may not trace the process. The
// kernel also answers EPERM for a thread that is exiting, so once some
// thread of the process was held, EPERM only means that thread is gone.
bool DeniedTracing(const ThreadStopper& stopper, bool held_any);
// The threads to read: --tid, or all of them (empty with `failure` set if
// --tid names no thread of the process).
std::vector<pid_t> SelectThreads(const Options& options, pid_t pid, Failure* failure);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_COMMANDS_H_
