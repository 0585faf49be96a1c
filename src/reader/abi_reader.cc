#include "abi_reader.h"

#include <elf.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
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
  const std::optional<TlsVariable> current =
      LocateTlsVariable(*elf, t.base, memory, kCurrentSetSymbol, failure);
  if (!current) {
    if (failure->exit == kAbiMismatch) failure->message = t.path + ": " + failure->message;
    return std::nullopt;
  }
  t.current_set = *current;
  // The OpenTelemetry thread context: optional (older addons lack it), and
  // a fault in it never hides the labels.
  const std::optional<ElfSymbol> otel = elf->FindDynamicSymbol(kOtelSymbol);
  t.otel_exported = otel.has_value();
  if (t.otel_exported) {
    Failure otel_failure;
    t.otel = LocateTlsVariable(*elf, t.base, memory, kOtelSymbol, &otel_failure);
    t.otel_error = otel_failure.message;
  }
  // The Node.js discovery struct, likewise optional.
  const std::optional<ElfSymbol> node = elf->FindDynamicSymbol(kNodeSymbol);
  t.node_exported = node.has_value();
  if (t.node_exported) {
    Failure node_failure;
    t.node = LocateTlsVariable(*elf, t.base, memory, kNodeSymbol, &node_failure);
    t.node_error = node_failure.message;
  }
  return t;
}

std::optional<TlsVariable> LocateTlsVariable(const ElfFile& elf, uint64_t base,
                                             const MemorySource& memory, const char* symbol,
                                             Failure* failure) {
  const std::optional<ElfRelocation> desc = elf.FindTlsDescriptor(symbol);
  if (!desc) {
    Fail(failure, kAbiMismatch,
         "no " + std::string(MachineName(elf.machine())) + " TLSDESC relocation names " + symbol);
    return std::nullopt;
  }
  TlsVariable v;
  v.descriptor_address = base + desc->offset;
  uint64_t words[2];
  if (!memory.Read(v.descriptor_address, words, sizeof(words))) {
    Fail(failure, kUnreadable,
         "cannot read the TLS descriptor of " + std::string(symbol) + " at " +
             Hex(v.descriptor_address));
    return std::nullopt;
  }
  v.resolver = words[0];
  v.argument = words[1];
  // Static TLS: the argument is the variable's offset from the thread
  // pointer (negative on x86-64, TLS variant II; small positive on aarch64).
  // Dynamic TLS: it points to glibc's {module, offset, generation}.
  const auto signed_arg = static_cast<int64_t>(v.argument);
  v.static_tls = elf.machine() == EM_X86_64 ? (signed_arg < 0 && signed_arg > -kStaticWindow)
                                            : (signed_arg >= 0 && signed_arg < kStaticWindow);
  if (!v.static_tls) {
    uint64_t arg[2];
    if (!memory.Read(v.argument, arg, sizeof(arg)) || arg[0] == 0 || arg[0] > (1u << 20)) {
      Fail(failure, kUnreadable,
           "TLS descriptor argument " + Hex(v.argument) + " of " + symbol +
               " is neither a static offset nor dynamic TLS data");
      return std::nullopt;
    }
    v.dyn_module = arg[0];
    v.dyn_offset = arg[1];
  }
  return v;
}

bool TlsSlotAddress(const TlsVariable& v, uint16_t machine, uint64_t thread_pointer,
                    const MemorySource& memory, uint64_t* slot, std::string* error) {
  *slot = 0;
  if (v.static_tls) {
    *slot = thread_pointer + v.argument;
    return true;
  }
  // glibc: the DTV pointer is in the TCB (x86-64: tp+8, aarch64: tp+0);
  // dtv[-1] holds its length, dtv[m] = {block, to_free} for module m.
  const uint64_t dtv_field = thread_pointer + (machine == EM_X86_64 ? 8 : 0);
  uint64_t dtv = 0, length = 0, block = 0;
  if (!memory.ReadValue(dtv_field, &dtv) || !memory.ReadValue(dtv - 16, &length)) {
    *error = "cannot read the thread's DTV at " + Hex(dtv_field);
    return false;
  }
  if (v.dyn_module <= length && memory.ReadValue(dtv + 16 * v.dyn_module, &block) && block != 0 &&
      block != ~uint64_t{0}) {
    *slot = block + v.dyn_offset;
  }
  return true;
}

bool ReadTlsPointer(const TlsVariable& v, uint16_t machine, uint64_t thread_pointer,
                    const MemorySource& memory, const char* symbol, uint64_t* slot, uint64_t* value,
                    std::string* error) {
  *value = 0;
  if (!TlsSlotAddress(v, machine, thread_pointer, memory, slot, error)) return false;
  if (*slot == 0) return true;  // never touched its TLS: nothing published
  if (!memory.ReadValue(*slot, value)) {
    *error = "cannot read " + std::string(symbol) + " at " + Hex(*slot);
    return false;
  }
  return true;
}

ThreadRead ReadCurrentSet(const AbiTarget& t, uint64_t thread_pointer, const MemorySource& memory,
                          const ReadLimits& limits) {
  ThreadRead r;
  r.thread_pointer = thread_pointer;
  uint64_t set_address = 0;
  if (!ReadTlsPointer(t.current_set, t.machine, thread_pointer, memory, kCurrentSetSymbol,
                      &r.slot_address, &set_address, &r.set.error)) {
    return r;
  }
  if (r.slot_address == 0) return r;  // never touched its TLS: no labels
  r.set = DecodeLabelSet(memory, set_address, limits);
  return r;
}

OtelRecord ReadOtelRecord(const AbiTarget& t, uint64_t thread_pointer, const MemorySource& memory) {
  OtelRecord record;
  if (!t.otel) return record;
  uint64_t slot = 0, address = 0;
  if (!ReadTlsPointer(*t.otel, t.machine, thread_pointer, memory, kOtelSymbol, &slot, &address,
                      &record.error)) {
    return record;
  }
  return DecodeOtelRecord(memory, address);
}

ThreadRead ReadThread(const AbiTarget& t, ThreadStopper* stopper, const ReadLimits& limits,
                      ReadPlan* plan) {
  const auto start = std::chrono::steady_clock::now();
  uint64_t thread_pointer = 0;
  if (!stopper->ThreadPointer(&thread_pointer)) {
    ThreadRead r;
    r.set.error = stopper->error();
    return r;
  }
  ReadPlan own;
  ThreadRead r = ReadThreadFrom(t, thread_pointer, ProcessMemory(t.pid), limits, plan ? plan : &own);
  r.held_us = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                        std::chrono::steady_clock::now() - start)
                                        .count());
  return r;
}

ThreadRead ReadThreadFrom(const AbiTarget& t, uint64_t thread_pointer, const MemorySource& memory,
                          const ReadLimits& limits, ReadPlan* plan) {
  const HeldMemory held(memory);
  ThreadRead r = ReadCurrentSet(t, thread_pointer, held, limits);
  if (t.otel) r.otel = ReadOtelRecord(t, thread_pointer, held);
  if (t.node) ReadNodeWalk(t, thread_pointer, held, limits, &plan->budget, &r);
  for (const TlsVariable* other : plan->other_node) {
    r.other_walks.push_back(WalkNodeCopy(*other, t.machine, thread_pointer, held, &plan->budget));
  }
  if (plan->parca != nullptr) {
    const HeldMemory walk(held, std::min(kWalkReads, plan->budget.reads_left));
    r.parca = ReadParcaThread(*plan->parca, t.machine, thread_pointer, walk);
    plan->budget.reads_left -= std::min(walk.reads(), plan->budget.reads_left);
    if (walk.refused()) r.parca->walk = "skipped: the reader's budget of reads is spent";
    // Its set is mostly the one read already (the current set, or the
    // walk's); another is decoded while the thread is still held.
    const uint64_t set = r.parca->set;
    if (set == r.set.address && r.set.ok()) {
      r.parca_set = r.set;
    } else if (set != 0) {
      r.parca_set = DecodeLabelSet(held, set, limits);
    }
  }
  r.held_reads = held.reads();
  return r;
}

NodeWalk WalkNodeCopy(const TlsVariable& variable, uint16_t machine, uint64_t thread_pointer,
                      const MemorySource& memory, WalkBudget* budget) {
  NodeWalk w;
  uint64_t address = 0;
  std::string error;
  if (!TlsSlotAddress(variable, machine, thread_pointer, memory, &address, &error)) {
    w.status = "unreadable: " + error;
  } else if (address == 0) {
    w.status = "no-copy";  // the thread never touched the module's TLS
  } else if (budget->spent()) {
    w.status = "skipped: the reader's budget of reads is spent";
  } else {
    const HeldMemory held(memory, std::min(kWalkReads, budget->reads_left));
    w = WalkNode(held, address);
    budget->reads_left -= std::min(held.reads(), budget->reads_left);
    if (held.refused()) w.status = "skipped: the reader's budget of reads is spent";
  }
  return w;
}

void ReadNodeWalk(const AbiTarget& t, uint64_t thread_pointer, const MemorySource& memory,
                  const ReadLimits& limits, WalkBudget* budget, ThreadRead* r) {
  uint64_t address = 0;
  std::string error;
  if (!TlsSlotAddress(*t.node, t.machine, thread_pointer, memory, &address, &error)) {
    r->walk = "unreadable: " + error;
    return;
  }
  if (address == 0) {
    r->walk = "gate-closed";  // the thread never touched its TLS
    return;
  }
  if (budget->spent()) {
    r->walk = "skipped: the reader's budget of reads is spent";
    return;
  }
  const HeldMemory walk(memory, std::min(kWalkReads, budget->reads_left));
  const NodeWalk w = WalkNode(walk, address);
  budget->reads_left -= std::min(walk.reads(), budget->reads_left);
  r->walk = walk.refused() ? "skipped: the reader's budget of reads is spent" : w.status;
  r->walk_words = w.words;
  if (!w.found()) return;
  r->walk_set = w.label_set;
  if (w.record != 0) r->walk_record = DecodeOtelRecord(memory, w.record);
  // Hooks off: the TLS pointers stay NULL and the walk is the only source.
  if (r->set.error.empty() && r->set.address == 0 && w.label_set != 0) {
    r->set = DecodeLabelSet(memory, w.label_set, limits);
    r->via = "node-walk";
    if (r->walk_record && (!r->otel || r->otel->address == 0)) {
      r->otel = r->walk_record;
      r->otel_from_walk = true;
    }
  }
}

}  // namespace customlabels::reader
