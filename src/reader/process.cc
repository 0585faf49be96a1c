#include "process.h"

#include <dirent.h>
#include <elf.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace customlabels::reader {

std::vector<Mapping> ReadMappings(pid_t pid, std::string* error) {
  std::vector<Mapping> out;
  std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
  if (!in) {
    *error = std::strerror(errno);
    return out;
  }
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode;
    fields >> range >> perms >> offset >> dev >> inode;
    Mapping m;
    const size_t dash = range.find('-');
    if (dash == std::string::npos) continue;
    m.start = std::stoull(range.substr(0, dash), nullptr, 16);
    m.end = std::stoull(range.substr(dash + 1), nullptr, 16);
    m.offset = std::stoull(offset, nullptr, 16);
    m.perms = perms;
    std::getline(fields >> std::ws, m.path);
    static const std::string kDeleted = " (deleted)";
    if (m.path.size() > kDeleted.size() &&
        m.path.compare(m.path.size() - kDeleted.size(), kDeleted.size(), kDeleted) == 0) {
      m.path.resize(m.path.size() - kDeleted.size());
      m.deleted = true;
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<pid_t> ListThreads(pid_t pid) {
  std::vector<pid_t> out;
  DIR* dir = opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
  if (dir == nullptr) return out;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') out.push_back(std::atoi(e->d_name));
  }
  closedir(dir);
  std::sort(out.begin(), out.end());
  return out;
}

std::string ThreadName(pid_t pid, pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

char ThreadState(pid_t pid, pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() ? 0 : stat[paren + 2];
}

bool ProcessMemory::Read(uint64_t address, void* out, size_t size) const {
  if (size == 0) return true;
  if (size - 1 > UINT64_MAX - address) {  // wraps the address space
    errno = EFAULT;
    return false;
  }
  // process_vm_readv stops at the first unreadable page; a short read fails.
  iovec local{out, size};
  iovec remote{reinterpret_cast<void*>(address), size};
  return process_vm_readv(pid_, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size);
}

ThreadStopper::~ThreadStopper() { Detach(); }

bool ThreadStopper::Fail(const char* what) {
  errno_ = errno;
  error_ = std::string(what) + ": " + std::strerror(errno_);
  return false;
}

bool ThreadStopper::Stop() {
  if (stopped_) return true;
  if (!attached_) {
    if (ptrace(PTRACE_SEIZE, tid_, nullptr, nullptr) != 0) return Fail("PTRACE_SEIZE");
    attached_ = true;
  }
  if (ptrace(PTRACE_INTERRUPT, tid_, nullptr, nullptr) != 0) return Fail("PTRACE_INTERRUPT");
  for (;;) {
    int status = 0;
    if (waitpid(tid_, &status, __WALL) < 0) {
      if (errno == EINTR) continue;
      return Fail("waitpid");
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      attached_ = false;
      errno = ESRCH;
      return Fail("thread exited");
    }
    if (!WIFSTOPPED(status)) continue;
    if ((status >> 16) == PTRACE_EVENT_STOP) {
      stopped_ = true;  // our interrupt (or a group stop): the thread is held
      return true;
    }
    // A signal is being delivered: pass it on, then ask for the stop again.
    const int sig = WSTOPSIG(status);
    if (ptrace(PTRACE_CONT, tid_, nullptr, reinterpret_cast<void*>(static_cast<intptr_t>(sig))) !=
            0 ||
        ptrace(PTRACE_INTERRUPT, tid_, nullptr, nullptr) != 0) {
      return Fail("PTRACE_CONT");
    }
  }
}

bool ThreadStopper::ThreadPointer(uint64_t* out) {
#if defined(__x86_64__)
  user_regs_struct regs{};
  if (ptrace(PTRACE_GETREGS, tid_, nullptr, &regs) != 0) return Fail("PTRACE_GETREGS");
  *out = regs.fs_base;
  return true;
#elif defined(__aarch64__)
  uint64_t tp = 0;
  iovec io{&tp, sizeof(tp)};
  if (ptrace(PTRACE_GETREGSET, tid_, reinterpret_cast<void*>(NT_ARM_TLS), &io) != 0) {
    return Fail("PTRACE_GETREGSET NT_ARM_TLS");
  }
  *out = tp;
  return true;
#else
  (void)out;
  errno = ENOSYS;
  return Fail("thread pointer");
#endif
}

void ThreadStopper::Detach() {
  if (!attached_) return;
  // PTRACE_DETACH needs a stopped tracee; a running one is stopped first.
  if (!stopped_) Stop();
  if (ptrace(PTRACE_DETACH, tid_, nullptr, nullptr) != 0 && errno == ESRCH) {
    // Killed while held (the process exited): as its tracer, reap it, or it
    // stays a traced zombie that holds up the process's exit.
    for (int i = 0; i < 100; ++i) {
      int status = 0;
      const pid_t r = waitpid(tid_, &status, __WALL | WNOHANG);
      if (r == tid_ || (r < 0 && errno != EINTR)) break;
      if (r == 0) usleep(1000);
    }
  }
  attached_ = false;
  stopped_ = false;
}

}  // namespace customlabels::reader
