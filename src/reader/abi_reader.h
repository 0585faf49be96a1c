// Finds the Custom Label ABI in a live process and reads a thread's labels
// the way the Parca eBPF agent does: mapping by file name, .dynsym for the
// version, the TLSDESC relocation for the descriptor, thread pointer +
// descriptor argument for static TLS, the DTV for dynamic TLS. The
// OpenTelemetry thread context (OTEP 4947, otel_thread_ctx_v1) is a second
// TLS variable of the same module, reached the same way.
#ifndef CUSTOMLABELS_READER_ABI_READER_H_
#define CUSTOMLABELS_READER_ABI_READER_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "abi_names.h"
#include "elf_file.h"
#include "held_memory.h"
#include "label_set_decoder.h"
#include "memory_source.h"
#include "node_walk.h"
#include "otel_record.h"
#include "parca_lookup.h"
#include "process.h"
#include "read_limits.h"

namespace customlabels::reader {

// Exit codes of the CLI, also used as error kinds.
enum Exit : int {
  kOk = 0,
  kProblems = 1,  // `check` found ABI problems
  kUsage = 2,
  kNoProcess = 3,
  kNotPermitted = 4,
  kNotLoaded = 5,
  kAbiMismatch = 6,
  kUnreadable = 7,
};

struct Failure {
  int exit = kOk;
  std::string message;
};

// A thread-local variable of the module reached through its TLS descriptor
// (a TLSDESC relocation that names it): {resolver, argument}.
struct TlsVariable {
  uint64_t descriptor_address = 0, resolver = 0, argument = 0;
  bool static_tls = false;
  uint64_t dyn_module = 0, dyn_offset = 0;  // dynamic TLS only
};


struct AbiTarget {
  pid_t pid = 0;
  std::string path;   // of the mapped addon
  uint64_t base = 0;  // load bias
  uint16_t machine = 0;
  uint32_t version = 0;
  TlsVariable current_set;  // custom_labels_current_set
  std::optional<uint64_t> tls_size;
  // otel_thread_ctx_v1: nullopt when the module does not export it (an
  // older addon), or when it does but cannot be reached (`otel_error`).
  std::optional<TlsVariable> otel;
  bool otel_exported = false;
  std::string otel_error;
  // otel_thread_ctx_nodejs_v1 (node_walk.h): where the hook-free Node.js
  // walk starts; nullopt as for `otel`.
  std::optional<TlsVariable> node;
  bool node_exported = false;
  std::string node_error;
};


// Locates and validates the ABI in `pid`; nullopt with `failure` otherwise.
std::optional<AbiTarget> LocateAbi(pid_t pid, Failure* failure);

// Reads the TLS descriptor of `symbol` (the module loaded at `base`) from
// `memory` and tells static from dynamic TLS; nullopt with `failure` set:
// kAbiMismatch if no TLSDESC relocation names it, kUnreadable if the
// descriptor cannot be read or is neither.
std::optional<TlsVariable> LocateTlsVariable(const ElfFile& elf, uint64_t base,
                                             const MemorySource& memory, const char* symbol,
                                             Failure* failure);

// Where a thread's copy of `variable` is: thread pointer + argument (static
// TLS) or the module's DTV block + offset (dynamic TLS). Returns false with
// `error` set when the DTV cannot be read; true with *slot 0 when the
// thread never allocated the module's dynamic TLS block.
bool TlsSlotAddress(const TlsVariable& variable, uint16_t machine, uint64_t thread_pointer,
                    const MemorySource& memory, uint64_t* slot, std::string* error);
// The pointer a thread's copy of `variable` (named `symbol`) holds: false
// with `error` set when it cannot be read; *slot 0 and *value 0 when the
// thread has no copy yet.
bool ReadTlsPointer(const TlsVariable& variable, uint16_t machine, uint64_t thread_pointer,
                    const MemorySource& memory, const char* symbol, uint64_t* slot, uint64_t* value,
                    std::string* error);

struct ThreadRead {
  uint64_t thread_pointer = 0;
  uint64_t slot_address = 0;  // 0 if the dynamic TLS block is not allocated
  // The thread's current set; set.error also says when the TLS slot itself
  // could not be read (then set.address is 0).
  DecodedSet set;
  // The thread's OpenTelemetry context record, when the module exports
  // otel_thread_ctx_v1 (record.error also says when the slot could not be
  // read); `otel_from_walk` when otel_thread_ctx_v1 was NULL and it is the
  // record the walk found.
  std::optional<OtelRecord> otel;
  bool otel_from_walk = false;
  // Where the labels came from: "tls" (custom_labels_current_set), or
  // "node-walk" when that pointer is NULL and the walk found a store.
  std::string via = "tls";
  // The walk's status when the module exports otel_thread_ctx_nodejs_v1
  // (node_walk.h), else empty.
  std::string walk;
  // The label set the walk found (0: none), also when the TLS pointer is set,
  // its record (when it has one) and the discovery struct as read.
  uint64_t walk_set = 0;
  std::optional<OtelRecord> walk_record;
  NodeDiscoveryWords walk_words;
  // The walk from each of ReadPlan::other_node's copies on this thread, in
  // its order (status "no-copy": the module's dynamic TLS block is not
  // allocated on this thread).
  std::vector<NodeWalk> other_walks;
  // What the Parca agent reads (ReadPlan::parca): its lookup's steps and the
  // set it records, decoded (parca_set.address 0: none).
  std::optional<ParcaThread> parca;
  DecodedSet parca_set;
  // What holding the thread took: reads of its memory, and time.
  uint64_t held_reads = 0;
  uint64_t held_us = 0;
};

// What one pass over a process reads besides each thread's own set: the
// Parca agent's view (when `parca` is set up), and the budget its walks
// share (held_memory.h).
struct ReadPlan {
  const ParcaSetup* parca = nullptr;
  // Other modules' otel_thread_ctx_nodejs_v1 (writers.h), each walked too.
  std::vector<const TlsVariable*> other_node;
  WalkBudget budget;
};

// Reads the current set of the thread whose thread pointer is
// `thread_pointer`, from `memory`: pure, so tests run it on an image.
ThreadRead ReadCurrentSet(const AbiTarget& target, uint64_t thread_pointer,
                          const MemorySource& memory, const ReadLimits& limits);
// Reads the thread's otel_thread_ctx_v1 record (target.otel must be set).
OtelRecord ReadOtelRecord(const AbiTarget& target, uint64_t thread_pointer,
                          const MemorySource& memory);
// Reads one live thread's current set and, when the module exports it, its
// OpenTelemetry context, its Node.js walk and (with plan->parca) the Parca
// agent's view. `stopper` must hold it stopped; the walks draw on
// plan->budget (a plan of its own when nullptr).
ThreadRead ReadThread(const AbiTarget& target, ThreadStopper* stopper, const ReadLimits& limits,
                      ReadPlan* plan = nullptr);
// The same over any memory (pure, like ReadCurrentSet).
ThreadRead ReadThreadFrom(const AbiTarget& target, uint64_t thread_pointer,
                          const MemorySource& memory, const ReadLimits& limits, ReadPlan* plan);

// Follows the Node.js walk of `target` for the thread and records it in `r`:
// where custom_labels_current_set is NULL (hooks off) the labels and the
// record come from the store the walk found. At most kWalkReads reads, from
// `budget`. Pure, like ReadCurrentSet.
void ReadNodeWalk(const AbiTarget& target, uint64_t thread_pointer, const MemorySource& memory,
                  const ReadLimits& limits, WalkBudget* budget, ThreadRead* r);
// The same walk from another module's copy of otel_thread_ctx_nodejs_v1
// (what a reader that keeps that module finds on the thread).
NodeWalk WalkNodeCopy(const TlsVariable& variable, uint16_t machine, uint64_t thread_pointer,
                      const MemorySource& memory, WalkBudget* budget);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_ABI_READER_H_
