// What inspect and sample print of the OpenTelemetry contexts, in text and
// JSON: a thread's record (trace, span, flags, attributes keyed through the
// process context's key map) and the process context itself. Pure.
#ifndef CUSTOMLABELS_READER_OTEL_REPORT_H_
#define CUSTOMLABELS_READER_OTEL_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "otel_record.h"
#include "process_context.h"

namespace customlabels::reader {

// One thread's record as shown.
struct OtelView {
  bool record_known = false;  // the record pointer was read
  uint64_t record = 0;
  std::string error;
  std::optional<std::string> trace_id, span_id;  // lowercase hex; nullopt: no trace
  uint8_t trace_flags = 0;
  std::vector<OtelAttribute> attributes;
  std::vector<std::string> problems;
  uint64_t more_problems = 0;
};

// The view of `record`, its keys resolved through `context`'s key map
// (nullptr or no key map: every attribute is dropped and noted).
OtelView MakeOtelView(const OtelRecord& record, const ProcessContext* context);
// Whether inspect shows the record at all: it has one, or an error.
inline bool ShowsOtel(const OtelRecord& record) { return record.has_context() || !record.ok(); }

// {"record":"0x..","trace_id":"..."|null,"span_id":"..."|null,
//  "trace_flags":N,"attributes":{..}[,"problems":[..]]}, or with "error".
std::string JsonOtel(const OtelView& view);
// "otel trace T span S flags 01: k=v ..." and "! otel error|problem: ..."
// lines (without indent).
std::vector<std::string> TextOtelLines(const OtelView& view);

// {"mapping":..,"address":..,"version":2,...}: inspect and sample --json
// add it to their first line as "process_context".
std::string JsonProcessContext(const ProcessContext& context);
// "process context: NAME at 0x..: version 2, ..." and its indented lines.
std::string TextProcessContext(const ProcessContext& context);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_OTEL_REPORT_H_
