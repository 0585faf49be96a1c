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

#include "label_set_decoder.h"
#include "memory_source.h"
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

// The readers find the ABI's module by its file name (the spec's pattern).
constexpr const char* kAddonNamePattern = R"(libcustomlabels.*\.so$|customlabels\.node$)";
bool IsAddonFileName(const std::string& path);

// Locates and validates the ABI in `pid`; nullopt with `failure` otherwise.
std::optional<AbiTarget> LocateAbi(pid_t pid, Failure* failure);

struct ThreadRead {
  uint64_t thread_pointer = 0;
  uint64_t slot_address = 0;  // 0 if the dynamic TLS block is not allocated
  // The thread's current set; set.error also says when the TLS slot itself
  // could not be read (then set.address is 0).
  DecodedSet set;
};

// Reads the current set of the thread whose thread pointer is
// `thread_pointer`, from `memory`: pure, so tests run it on an image.
ThreadRead ReadCurrentSet(const AbiTarget& target, uint64_t thread_pointer,
                          const MemorySource& memory, const ReadLimits& limits);
// Reads one live thread's current set. `stopper` must hold it stopped.
ThreadRead ReadThread(const AbiTarget& target, ThreadStopper* stopper, const ReadLimits& limits);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_ABI_READER_H_
