// Finds the Custom Label ABI in a live process and reads a thread's labels
// the way the Parca eBPF agent does: mapping by file name, .dynsym for the
// version, the TLSDESC relocation for the descriptor, thread pointer +
// descriptor argument for static TLS, the DTV for dynamic TLS.
#ifndef CUSTOMLABELS_READER_ABI_READER_H_
#define CUSTOMLABELS_READER_ABI_READER_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "elf_file.h"
#include "process.h"

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

// One slot of a label set exactly as stored (null keys included).
struct Slot {
  bool key_null = false;
  std::string key, value;
};

struct AbiTarget {
  pid_t pid = 0;
  std::string path;   // of the mapped addon
  uint64_t base = 0;  // load bias
  uint16_t machine = 0;
  uint32_t version = 0;
  uint64_t descriptor_address = 0, resolver = 0, argument = 0;
  bool static_tls = false;
  uint64_t dyn_module = 0, dyn_offset = 0;  // dynamic TLS only
  std::optional<uint64_t> tls_size;
};

// Locates and validates the ABI in `pid`; nullopt with `failure` otherwise.
std::optional<AbiTarget> LocateAbi(pid_t pid, Failure* failure);

struct ThreadRead {
  bool ok = false;  // false: the thread is gone or unreadable
  std::string error;
  uint64_t thread_pointer = 0;
  uint64_t slot_address = 0;  // 0 if the dynamic TLS block is not allocated
  uint64_t set_address = 0;   // 0 = NULL
  std::vector<Slot> slots;    // raw storage[0..count)
};

// Reads one thread's current set. `stopper` must hold the thread stopped.
ThreadRead ReadThread(const AbiTarget& target, pid_t tid, ThreadStopper* stopper);

struct Label {
  std::string key, value;
};
// ABI semantics: null keys skipped, the first label of a key wins.
std::vector<Label> AbiView(const std::vector<Slot>& slots);

// What the Parca agent keeps: the first 10 slots (null-key slots count),
// keys cut to 25 bytes and values to 53, the last of duplicate keys.
struct ParcaLimits {
  static constexpr size_t kSlots = 10, kKey = 25, kValue = 53;
};
std::vector<Label> ParcaView(const std::vector<Slot>& slots);
// Human-readable notes on what Parca would drop or cut (empty if nothing).
std::vector<std::string> ParcaNotes(const std::vector<Slot>& slots);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_ABI_READER_H_
