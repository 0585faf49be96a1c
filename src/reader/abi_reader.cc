#include "abi_reader.h"

#include <elf.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <regex>

namespace customlabels::reader {

namespace {

constexpr uint64_t kMaxCount = 1u << 20;       // labels in one set
constexpr uint64_t kMaxString = 256ull << 20;  // bytes of one key or value
constexpr int64_t kStaticWindow = int64_t{1} << 24;

const std::regex& AddonName() {
  static const std::regex re(R"(libcustomlabels.*\.so$|customlabels\.node$)");
  return re;
}

bool Fail(Failure* f, int exit, std::string message) {
  f->exit = exit;
  f->message = std::move(message);
  return false;
}

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

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
    if (!m.path.empty() && std::regex_search(m.path, AddonName())) {
      if (module == nullptr || m.start < module->start) module = &m;
    }
  }
  if (module == nullptr) {
    Fail(failure, kNotLoaded,
         "process " + std::to_string(pid) +
             " has not loaded customlabels.node (no mapping matches "
             "libcustomlabels.*\\.so$|customlabels\\.node$)");
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
  const ElfSymbol* version = elf->FindDynamicSymbol("custom_labels_abi_version");
  if (version == nullptr || version->size != 4) {
    Fail(failure, kAbiMismatch, t.path + ": no 4-byte custom_labels_abi_version in .dynsym");
    return std::nullopt;
  }
  if (!ReadValue(pid, t.base + version->value, &t.version)) {
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
  const ElfRelocation* desc = elf->FindTlsDescriptor("custom_labels_current_set");
  if (desc == nullptr) {
    Fail(failure, kAbiMismatch,
         t.path + ": no " + std::string(MachineName(t.machine)) +
             " TLSDESC relocation names custom_labels_current_set");
    return std::nullopt;
  }
  t.descriptor_address = t.base + desc->offset;
  uint64_t words[2];
  if (!ReadMemory(pid, t.descriptor_address, words, sizeof(words))) {
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
    if (!ReadMemory(pid, t.argument, arg, sizeof(arg)) || arg[0] == 0 || arg[0] > (1u << 20)) {
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

ThreadRead ReadThread(const AbiTarget& t, pid_t tid, ThreadStopper* stopper) {
  ThreadRead r;
  if (!stopper->ThreadPointer(&r.thread_pointer)) {
    r.error = stopper->error();
    return r;
  }
  if (t.static_tls) {
    r.slot_address = r.thread_pointer + t.argument;
  } else {
    // glibc: the DTV pointer is in the TCB (x86-64: tp+8, aarch64: tp+0);
    // dtv[-1] holds its length, dtv[m] = {block, to_free} for module m.
    const uint64_t dtv_field = r.thread_pointer + (t.machine == EM_X86_64 ? 8 : 0);
    uint64_t dtv = 0, length = 0, block = 0;
    if (!ReadValue(t.pid, dtv_field, &dtv) || !ReadValue(t.pid, dtv - 16, &length)) {
      r.error = "cannot read the DTV of thread " + std::to_string(tid);
      return r;
    }
    if (t.dyn_module <= length && ReadValue(t.pid, dtv + 16 * t.dyn_module, &block) && block != 0 &&
        block != ~uint64_t{0}) {
      r.slot_address = block + t.dyn_offset;
    }
  }
  r.ok = true;
  if (r.slot_address == 0) return r;  // never touched its TLS: no labels
  if (!ReadValue(t.pid, r.slot_address, &r.set_address)) {
    r.ok = false;
    r.error = "cannot read custom_labels_current_set at " + Hex(r.slot_address);
    return r;
  }
  if (r.set_address == 0) return r;
  uint64_t header[3];  // storage, count, capacity
  if (!ReadMemory(t.pid, r.set_address, header, sizeof(header))) {
    r.ok = false;
    r.error = "cannot read the label set at " + Hex(r.set_address);
    return r;
  }
  if (header[1] > kMaxCount) {
    r.ok = false;
    r.error = "implausible label count " + std::to_string(header[1]);
    return r;
  }
  std::vector<uint64_t> raw(header[1] * 4);
  if (!ReadMemory(t.pid, header[0], raw.data(), raw.size() * 8)) {
    r.ok = false;
    r.error = "cannot read label storage at " + Hex(header[0]);
    return r;
  }
  auto read_string = [&](uint64_t len, uint64_t buf, std::string* out) {
    if (len > kMaxString) return false;
    out->resize(len);
    return ReadMemory(t.pid, buf, out->data(), len);
  };
  for (uint64_t i = 0; i < header[1]; ++i) {
    Slot s;
    const uint64_t* l = &raw[i * 4];  // key.len, key.buf, value.len, value.buf
    s.key_null = l[1] == 0;
    if (!s.key_null &&
        (!read_string(l[0], l[1], &s.key) || l[3] == 0 || !read_string(l[2], l[3], &s.value))) {
      r.ok = false;
      r.error = "cannot read label " + std::to_string(i);
      return r;
    }
    r.slots.push_back(std::move(s));
  }
  return r;
}

std::vector<Label> AbiView(const std::vector<Slot>& slots) {
  std::vector<Label> out;
  for (const Slot& s : slots) {
    if (s.key_null) continue;
    bool seen = false;
    for (const Label& l : out) seen = seen || l.key == s.key;
    if (!seen) out.push_back({s.key, s.value});
  }
  return out;
}

std::vector<Label> ParcaView(const std::vector<Slot>& slots) {
  std::vector<Label> out;
  for (size_t i = 0; i < slots.size() && i < ParcaLimits::kSlots; ++i) {
    if (slots[i].key_null) continue;
    Label l{slots[i].key.substr(0, ParcaLimits::kKey),
            slots[i].value.substr(0, ParcaLimits::kValue)};
    bool replaced = false;
    for (Label& existing : out) {
      if (existing.key == l.key) {
        existing.value = l.value;
        replaced = true;
      }
    }
    if (!replaced) out.push_back(std::move(l));
  }
  return out;
}

std::vector<std::string> ParcaNotes(const std::vector<Slot>& slots) {
  std::vector<std::string> notes;
  if (slots.size() > ParcaLimits::kSlots) {
    notes.push_back("only the first 10 of " + std::to_string(slots.size()) + " labels are read");
  }
  for (size_t i = 0; i < slots.size() && i < ParcaLimits::kSlots; ++i) {
    const Slot& s = slots[i];
    if (s.key_null) continue;
    if (s.key.size() > ParcaLimits::kKey) {
      notes.push_back("key \"" + s.key.substr(0, ParcaLimits::kKey) + "...\" is cut to 25 bytes (" +
                      std::to_string(s.key.size()) + ")");
    }
    if (s.value.size() > ParcaLimits::kValue) {
      notes.push_back("value of \"" + s.key.substr(0, ParcaLimits::kKey) +
                      "\" is cut to 53 bytes (" + std::to_string(s.value.size()) + ")");
    }
  }
  return notes;
}

}  // namespace customlabels::reader
