// The OpenTelemetry process context (OTEP 4719) of a live process: a
// mapping named OTEL_CTX whose 32-byte header points to a protobuf
// ProcessContext (opentelemetry.proto.processcontext.v1development):
//
//   0  char[8] signature "OTEL_CTX"
//   8  uint32 version (2)
//   12 uint32 payload_size (0 < size <= 65536)
//   16 uint64 monotonic_published_at_ns (0: being updated)
//   24 uint64 payload pointer (in the process's address space)
//
// It is read by the publication protocol: the timestamp (non-zero), then
// header and payload, then the timestamp again; a change means a writer
// was at work, and the read is retried. From the payload the reader takes
// the resource attributes, the other attributes, and the two the thread
// context needs: threadlocal.schema_version and
// threadlocal.attribute_key_map. Pure over a MemorySource, bounded.
#ifndef CUSTOMLABELS_READER_PROCESS_CONTEXT_H_
#define CUSTOMLABELS_READER_PROCESS_CONTEXT_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "any_value.h"
#include "memory_source.h"
#include "otel_record.h"
#include "process.h"

namespace customlabels::reader {

struct ProcessContext {
  static constexpr size_t kHeaderBytes = 32;
  static constexpr uint32_t kVersion = 2;
  static constexpr uint32_t kMaxPayloadBytes = 65536;
  static constexpr size_t kMaxKeys = 256;
  static constexpr size_t kMaxProblems = 16;
  static constexpr const char* kSchemaVersion = "tlsdesc_v1_dev";
  // The Node.js walk's (node_walk.h; the design doc "Node.js Thread Context").
  static constexpr const char* kNodeSchemaVersion = "nodejs_v1_dev";
  static constexpr const char* kSchemaKey = "threadlocal.schema_version";
  static constexpr const char* kKeyMapKey = "threadlocal.attribute_key_map";

  std::string mapping;   // its name in /proc/PID/maps
  uint64_t address = 0;  // of the header (the mapping's start)
  std::string error;     // non-empty: nothing (more) could be used
  int attempts = 0;      // reads it took (more than 1: a writer was at work)

  // The header as read.
  std::string signature;
  uint32_t version = 0, payload_size = 0;
  uint64_t published_at = 0, payload_address = 0;

  // The payload.
  std::vector<KeyValue> resource;    // Resource.attributes
  std::vector<KeyValue> attributes;  // ProcessContext.attributes but the threadlocal.* two
  std::optional<AnyValue> schema_version;
  // threadlocal.attribute_key_map: its first kMaxKeys elements (a non-string
  // element is nullopt), and how many it had.
  std::optional<AttributeKeyMap> key_map;
  bool key_map_published = false;  // the attribute was there (key_map may still be nullopt)
  uint64_t key_map_count = 0;
  std::vector<std::string> problems;
  uint64_t more_problems = 0;

  bool ok() const { return error.empty(); }
  // schema_version is a string equal to kSchemaVersion.
  bool schema_accepted() const;
  void Problem(std::string note);
};

// Decodes `payload` (a ProcessContext message) into `out` (resource,
// attributes, schema_version, key_map, problems); false with out->error
// set if it does not decode.
bool DecodeProcessContextPayload(std::string_view payload, ProcessContext* out);

// Reads the process context whose header is at `address` by the
// publication protocol, at most `attempts` times, calling `pause` (if any)
// between attempts.
ProcessContext ReadProcessContext(const MemorySource& memory, uint64_t address, int attempts,
                                  void (*pause)());

// Whether a mapping is a process context by its name: /memfd:OTEL_CTX
// (deleted or not), [anon_shmem:OTEL_CTX] or [anon:OTEL_CTX].
bool IsProcessContextName(const Mapping& mapping);
// The last such mapping that is not executable (the one readers decode), or
// nullptr.
const Mapping* FindProcessContextMapping(const std::vector<Mapping>& maps);

// The live process's context: nullopt when it has none (no such mapping).
std::optional<ProcessContext> ReadLiveProcessContext(pid_t pid);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_PROCESS_CONTEXT_H_
