// Another process as the reader sees it: mappings, threads, memory
// (process_vm_readv) and thread stops (PTRACE_SEIZE + PTRACE_INTERRUPT).
#ifndef CUSTOMLABELS_READER_PROCESS_H_
#define CUSTOMLABELS_READER_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "memory_source.h"

namespace customlabels::reader {

struct Mapping {
  uint64_t start = 0, end = 0, offset = 0;
  std::string perms;
  std::string path;      // without the kernel's " (deleted)" suffix
  bool deleted = false;  // the file was removed or replaced since mapped
};

// Mappings of `pid` from /proc/PID/maps; empty with `error` set on failure.
std::vector<Mapping> ReadMappings(pid_t pid, std::string* error);
// Thread ids from /proc/PID/task, ascending.
std::vector<pid_t> ListThreads(pid_t pid);
// /proc/PID/task/TID/comm without the newline.
std::string ThreadName(pid_t pid, pid_t tid);
// 'R', 'S', 'D', ... from /proc/PID/task/TID/stat, or 0 if gone.
char ThreadState(pid_t pid, pid_t tid);

// Another process's memory, read with process_vm_readv; errno says why a
// read failed.
class ProcessMemory final : public MemorySource {
 public:
  explicit ProcessMemory(pid_t pid) : pid_(pid) {}
  bool Read(uint64_t address, void* out, size_t size) const override;

 private:
  pid_t pid_;
};

// A thread held in a ptrace stop. The kernel resumes it if this process
// dies, so a killed reader never leaves the target stopped.
class ThreadStopper final {
 public:
  explicit ThreadStopper(pid_t tid) : tid_(tid) {}
  ~ThreadStopper();
  ThreadStopper(const ThreadStopper&) = delete;
  ThreadStopper& operator=(const ThreadStopper&) = delete;

  // Attaches (once) and stops the thread. Returns false if the thread is
  // gone or cannot be traced; `error()` says why (errno text).
  bool Stop();
  // Reads the stopped thread's thread pointer (fs_base / TPIDR_EL0).
  bool ThreadPointer(uint64_t* out);
  // Lets the thread run on and releases it: a thread left attached between
  // samples would sit in a signal-delivery stop, frozen, whenever a signal
  // arrives until the reader waits for it again.
  void Detach();
  const std::string& error() const { return error_; }
  int error_number() const { return errno_; }

 private:
  bool Fail(const char* what);
  pid_t tid_;
  bool attached_ = false;
  bool stopped_ = false;
  std::string error_;
  int errno_ = 0;
};

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_PROCESS_H_
