#include "abi_reader.h"

#include <elf.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <regex>

#include "elf_file.h"
#include "format.h"

namespace customlabels::reader {

namespace {

constexpr int64_t kStaticWindow = int64_t{1} << 24;

bool Fail(Failure* f, int exit, std::string message) {
  f->exit = exit;
  f->message = std::move(message);
  return false;
}

}  // namespace

bool IsAddonFileName(const std::string& path) {
  static const std::regex re(kAddonNamePattern);
  return std::regex_search(path, re);
}

std::optional<AbiTarget> LocateAbi(pid_t pid, Failure* failure) {
  AbiTarget t;
  t.pid = pid;
  struct stat st;
  if (stat(("/proc/" + std::to_string(pid)).c_str(), &st) != 0) {
    Fail(failure, kNoProcess, "no such process: " + std::to_string(pid));
    return std::nullopt;
  }
  std::string error;
  const std::vector<Mapping> maps = ReadMappings(pid, &error);
  if (maps.empty()) {
    Fail(failure, errno == EACCES ? kNotPermitted : kNoProcess,
         "cannot read /proc/" + std::to_string(pid) + "/maps: " + error);
    return std::nullopt;
  }
  const Mapping* module = nullptr;
  for (const Mapping& m : maps) {
    if (!m.path.empty() && IsAddonFileName(m.path)) {
      if (module == nullptr || m.start < module->start) module = &m;
    }
  }
  if (module == nullptr) {
    Fail(failure, kNotLoaded,
         "process " + std::to_string(pid) +
             " has not loaded customlabels.node (no mapping matches " + kAddonNamePattern + ")");
    return std::nullopt;
  }
  t.path = module->deleted ? module->path + " (deleted)" : module->path;
  // The mapped file itself, even if the path was since replaced or deleted.
  char range[64];
  std::snprintf(range, sizeof(range), "%llx-%llx", static_cast<unsigned long long>(module->start),
                static_cast<unsigned long long>(module->end));
  std::optional<ElfFile> elf =
      ElfFile::Open("/proc/" + std::to_string(pid) + "/map_files/" + range, &error);
  const int map_files_errno = errno;
  if (!elf && module->deleted) {
    // Only /proc/PID/map_files still reaches a deleted file, and opening it
    // takes more than CAP_SYS_PTRACE.
    const bool denied = map_files_errno == EPERM || map_files_errno == EACCES;
    Fail(failure, denied ? kNotPermitted : kUnreadable,
         t.path + " was deleted or replaced since the process loaded it; " +
             (denied ? "reading it through /proc/" + std::to_string(pid) +
                           "/map_files needs root or CAP_SYS_ADMIN (" + error + ")"
                     : error));
    return std::nullopt;
  }
  if (!elf) elf = ElfFile::Open(module->path, &error);
  if (!elf) {
    Fail(failure, kUnreadable, error);
    return std::nullopt;
  }
  t.machine = elf->machine();
  t.tls_size = elf->tls_size();
  const std::optional<uint64_t> delta = elf->VaddrOfOffset(module->offset);
  if (!delta) {
    Fail(failure, kUnreadable, t.path + ": mapping offset is not in any PT_LOAD");
    return std::nullopt;
  }
  t.base = module->start - module->offset - *delta;
  const std::optional<ElfSymbol> version = elf->FindDynamicSymbol("custom_labels_abi_version");
  if (!version || version->size != 4) {
    Fail(failure, kAbiMismatch, t.path + ": no 4-byte custom_labels_abi_version in .dynsym");
    return std::nullopt;
  }
  const ProcessMemory memory(pid);
  if (!memory.ReadValue(t.base + version->value, &t.version)) {
    Fail(failure, errno == EPERM ? kNotPermitted : kUnreadable,
         "cannot read custom_labels_abi_version in process memory: " +
             std::string(std::strerror(errno)));
    return std::nullopt;
  }
  if (t.version != 1) {
    Fail(failure, kAbiMismatch,
         "ABI version mismatch: custom_labels_abi_version is " + std::to_string(t.version) +
             ", this reader reads 1");
    return std::nullopt;
  }
  const std::optional<ElfRelocation> desc = elf->FindTlsDescriptor("custom_labels_current_set");
  if (!desc) {
    Fail(failure, kAbiMismatch,
         t.path + ": no " + std::string(MachineName(t.machine)) +
             " TLSDESC relocation names custom_labels_current_set");
    return std::nullopt;
  }
  t.descriptor_address = t.base + desc->offset;
  uint64_t words[2];
  if (!memory.Read(t.descriptor_address, words, sizeof(words))) {
    Fail(failure, kUnreadable, "cannot read the TLS descriptor at " + Hex(t.descriptor_address));
    return std::nullopt;
  }
  t.resolver = words[0];
  t.argument = words[1];
  // Static TLS: the argument is the variable's offset from the thread
  // pointer (negative on x86-64, TLS variant II; small positive on aarch64).
  // Dynamic TLS: it points to glibc's {module, offset, generation}.
  const auto signed_arg = static_cast<int64_t>(t.argument);
  t.static_tls = t.machine == EM_X86_64 ? (signed_arg < 0 && signed_arg > -kStaticWindow)
                                        : (signed_arg >= 0 && signed_arg < kStaticWindow);
  if (!t.static_tls) {
    uint64_t arg[2];
    if (!memory.Read(t.argument, arg, sizeof(arg)) || arg[0] == 0 || arg[0] > (1u << 20)) {
      Fail(failure, kUnreadable,
           "TLS descriptor argument " + Hex(t.argument) +
               " is neither a static offset nor dynamic TLS data");
      return std::nullopt;
    }
    t.dyn_module = arg[0];
    t.dyn_offset = arg[1];
  }
  return t;
}

ThreadRead ReadCurrentSet(const AbiTarget& t, uint64_t thread_pointer, const MemorySource& memory,
                          const ReadLimits& limits) {
  ThreadRead r;
  r.thread_pointer = thread_pointer;
  if (t.static_tls) {
    r.slot_address = thread_pointer + t.argument;
  } else {
    // glibc: the DTV pointer is in the TCB (x86-64: tp+8, aarch64: tp+0);
    // dtv[-1] holds its length, dtv[m] = {block, to_free} for module m.
    const uint64_t dtv_field = thread_pointer + (t.machine == EM_X86_64 ? 8 : 0);
    uint64_t dtv = 0, length = 0, block = 0;
    if (!memory.ReadValue(dtv_field, &dtv) || !memory.ReadValue(dtv - 16, &length)) {
      r.set.error = "cannot read the thread's DTV at " + Hex(dtv_field);
      return r;
    }
    if (t.dyn_module <= length && memory.ReadValue(dtv + 16 * t.dyn_module, &block) && block != 0 &&
        block != ~uint64_t{0}) {
      r.slot_address = block + t.dyn_offset;
    }
  }
  if (r.slot_address == 0) return r;  // never touched its TLS: no labels
  uint64_t set_address = 0;
  if (!memory.ReadValue(r.slot_address, &set_address)) {
    r.set.error = "cannot read custom_labels_current_set at " + Hex(r.slot_address);
    return r;
  }
  r.set = DecodeLabelSet(memory, set_address, limits);
  return r;
}

ThreadRead ReadThread(const AbiTarget& t, ThreadStopper* stopper, const ReadLimits& limits) {
  uint64_t thread_pointer = 0;
  if (!stopper->ThreadPointer(&thread_pointer)) {
    ThreadRead r;
    r.set.error = stopper->error();
    return r;
  }
  return ReadCurrentSet(t, thread_pointer, ProcessMemory(t.pid), limits);
}

}  // namespace customlabels::reader
