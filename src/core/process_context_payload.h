// The payload of the OTEP 4719 process context: a protobuf
// opentelemetry.proto.processcontext.v1development.ProcessContext
// (opentelemetry-proto, processcontext/v1development/process_context.proto):
//
//   ProcessContext { Resource resource = 1; repeated KeyValue attributes = 2; }
//   Resource       { repeated KeyValue attributes = 1; }
//   KeyValue       { string key = 1; AnyValue value = 2; }
//   AnyValue       { string string_value = 1; ArrayValue array_value = 5; ... }
//   ArrayValue     { repeated AnyValue values = 1; }
//
// The thread context's reference data goes into ProcessContext.attributes
// (OTEP 4947): `threadlocal.schema_version` and `threadlocal.attribute_key_map`.
#ifndef CUSTOMLABELS_CORE_PROCESS_CONTEXT_PAYLOAD_H_
#define CUSTOMLABELS_CORE_PROCESS_CONTEXT_PAYLOAD_H_

#include <string>
#include <utility>
#include <vector>

#include "node_context.h"

namespace customlabels::core {

// The schema of TLS thread context records. OTEP 4947 says "initially
// `tlsdesc_v1_dev` for experimentation (to be changed to `tls_v1` once the
// OTEP gets merged)"; every reader of it found (the OpenTelemetry eBPF
// profiler's thread-context reader, PR #1229 and its split, whose
// `supportedThreadCtxSchemaVersion` is this string) accepts only this value.
inline constexpr const char* kThreadContextSchemaVersion = "tlsdesc_v1_dev";
// The schema of the Node.js walk (node_context.h): the OpenTelemetry eBPF
// profiler's design doc "Node.js Thread Context" (PR #1861) says
// "`nodejs_v1_dev` for experimentation, to become `nodejs_v1` once this doc
// gets merged"; @datadog/pprof 5.16+ publishes the same value.
inline constexpr const char* kNodeSchemaVersion = "nodejs_v1_dev";
inline constexpr const char* kSchemaVersionKey = "threadlocal.schema_version";
inline constexpr const char* kAttributeKeyMapKey = "threadlocal.attribute_key_map";

// The V8 layout constants an earlier revision of that design doc has readers
// take from the process context (int values); later revisions fix three of
// them by schema and move the record slot into otel_thread_ctx_nodejs_v1.
// Published with `nodejs_v1_dev` for readers of either revision.
inline constexpr const char* kRecordOffsetKey = "threadlocal.js_object_record_offset";
inline constexpr const char* kTaggedSizeKey = "threadlocal.tagged_size";
inline constexpr const char* kMapTableOffsetKey = "threadlocal.js_map_table_offset";
inline constexpr const char* kHashMapHeaderKey = "threadlocal.ordered_hash_map_header_size";

struct ProcessContextContents {
  // Resource attributes (service.name, ...), string values.
  std::vector<std::pair<std::string, std::string>> resource;
  std::vector<std::string> attribute_keys;
  // The Node.js walk's layout (schema nodejs_v1_dev), or none
  // (tlsdesc_v1_dev).
  bool node_schema = false;
  NodeLayout node_layout;
};

std::string EncodeProcessContext(const ProcessContextContents& contents);

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_PROCESS_CONTEXT_PAYLOAD_H_
