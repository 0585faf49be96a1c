// The OTEP 4719 process context mapping: a 32-byte header in a memory
// mapping named OTEL_CTX that points to a protobuf payload, published and
// updated by the OTEP's protocols so that a reader in another process can
// copy it consistently (it re-reads the timestamp, written last).
#ifndef CUSTOMLABELS_CORE_PROCESS_CONTEXT_MAPPING_H_
#define CUSTOMLABELS_CORE_PROCESS_CONTEXT_MAPPING_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace customlabels::core {

struct ProcessContextHeader {
  char signature[8];  // "OTEL_CTX", not NUL-terminated
  uint32_t version;   // 2
  uint32_t payload_size;
  uint64_t monotonic_published_at_ns;  // CLOCK_BOOTTIME; 0 while updating
  uint64_t payload;                    // address of the payload
};
static_assert(sizeof(ProcessContextHeader) == 32);

// Not thread-safe: ProcessContext serializes calls.
class ProcessContextMapping final {
 public:
  static constexpr uint32_t kVersion = 2;
  // Readers accept 0 < payload_size <= 65536 (the eBPF profiler's
  // processcontext reader, maxPayloadSize).
  static constexpr size_t kMaxPayloadBytes = 65536;
  static constexpr const char* kName = "OTEL_CTX";

  enum class Kind { kNone, kMemfd, kAnonymous };

  ProcessContextMapping() = default;
  ProcessContextMapping(const ProcessContextMapping&) = delete;
  ProcessContextMapping& operator=(const ProcessContextMapping&) = delete;
  ~ProcessContextMapping();

  // Whether /proc/self/maps already shows an OTEL_CTX mapping (another
  // publisher in this process: the OTEP allows one context per process).
  static bool OtherPublisherPresent();

  // Creates the mapping and publishes `payload` (first time), or runs the
  // update protocol. The payload is kept until the next publication.
  // False if the payload is empty or too large, or the mapping cannot be
  // created; nothing is then visible to readers.
  bool Publish(std::string payload);

  Kind kind() const { return kind_; }
  const ProcessContextHeader* header() const { return header_; }
  const std::string& payload() const { return payload_; }

 private:
  bool Create();
  uint64_t NextTimestamp();
  bool Name();

  ProcessContextHeader* header_ = nullptr;
  // The process that created the mapping: a child forked without exec has
  // none (MADV_DONTFORK) and makes its own.
  pid_t pid_ = 0;
  size_t mapping_bytes_ = 0;
  Kind kind_ = Kind::kNone;
  std::string payload_, previous_;
  uint64_t last_published_ = 0;
};

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_PROCESS_CONTEXT_MAPPING_H_
