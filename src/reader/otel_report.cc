#include "otel_report.h"

#include <cstdio>

#include "format.h"

namespace customlabels::reader {

namespace {

std::string JsonAttributes(const std::vector<OtelAttribute>& attributes) {
  std::string out = "{";
  for (size_t i = 0; i < attributes.size(); ++i) {
    out += (i ? "," : "") + JsonString(attributes[i].key) + ":" + JsonString(attributes[i].value);
  }
  return out + "}";
}

std::string JsonKeyMap(const AttributeKeyMap& map) {
  std::string out = "[";
  for (size_t i = 0; i < map.size(); ++i) {
    out += (i ? "," : "") + (map[i] ? JsonString(*map[i]) : std::string("null"));
  }
  return out + "]";
}

}  // namespace

OtelView MakeOtelView(const OtelRecord& record, const ProcessContext* context) {
  OtelView v;
  v.record_known = record.has_context() || record.ok();
  v.record = record.address;
  v.error = record.error;
  v.problems = record.problems;
  v.more_problems = record.more_problems;
  if (!record.ok() || !record.has_context()) return v;
  if (record.has_trace()) {
    v.trace_id = HexBytes(record.trace_id.data(), record.trace_id.size());
    v.span_id = HexBytes(record.span_id.data(), record.span_id.size());
  }
  v.trace_flags = record.trace_flags;
  const AttributeKeyMap* map =
      context != nullptr && context->ok() && context->key_map ? &*context->key_map : nullptr;
  v.attributes = ResolveOtelAttributes(record, map, &v.problems, &v.more_problems);
  return v;
}

std::string JsonOtel(const OtelView& v) {
  std::vector<std::string> fields;
  if (v.record_known) fields.push_back("\"record\":\"" + Hex(v.record) + "\"");
  if (v.error.empty()) {
    fields.push_back("\"trace_id\":" +
                     (v.trace_id ? "\"" + *v.trace_id + "\"" : std::string("null")));
    fields.push_back("\"span_id\":" + (v.span_id ? "\"" + *v.span_id + "\"" : std::string("null")));
    fields.push_back("\"trace_flags\":" + std::to_string(v.trace_flags));
    fields.push_back("\"attributes\":" + JsonAttributes(v.attributes));
  }
  if (!v.problems.empty() || v.more_problems != 0) {
    fields.push_back("\"problems\":" + JsonStrings(v.problems, v.more_problems));
  }
  if (!v.error.empty()) fields.push_back("\"error\":" + JsonString(v.error));
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + fields[i];
  return out + "}";
}

std::vector<std::string> TextOtelLines(const OtelView& v) {
  std::vector<std::string> lines;
  if (v.error.empty()) {
    char flags[8];
    std::snprintf(flags, sizeof(flags), "%02x", v.trace_flags);
    std::string line = v.trace_id ? "otel trace " + *v.trace_id + " span " + *v.span_id
                                  : std::string("otel no trace,");
    line += " flags " + std::string(flags) + ": ";
    if (v.attributes.empty()) {
      line += "(no attributes)";
    } else {
      for (size_t i = 0; i < v.attributes.size(); ++i) {
        line += (i ? " " : "") + TextString(v.attributes[i].key) + "=" +
                TextString(v.attributes[i].value);
      }
    }
    lines.push_back(line);
  } else {
    const bool named = v.error.find(Hex(v.record)) != std::string::npos;
    lines.push_back("! otel error: " + TextString(v.error) +
                    (v.record_known && !named ? " (record " + Hex(v.record) + ")" : ""));
  }
  for (const std::string& p : v.problems) lines.push_back("! otel problem: " + TextString(p));
  if (v.more_problems != 0) {
    lines.push_back("! otel problem: and " + std::to_string(v.more_problems) + " more");
  }
  return lines;
}

std::string JsonProcessContext(const ProcessContext& c) {
  std::string out =
      "{\"mapping\":" + JsonString(c.mapping) + ",\"address\":\"" + Hex(c.address) + "\"";
  if (c.ok()) {
    out += ",\"version\":" + std::to_string(c.version) +
           ",\"published_at\":" + std::to_string(c.published_at) + ",\"payload\":\"" +
           Hex(c.payload_address) + "\",\"payload_size\":" + std::to_string(c.payload_size);
    out += ",\"schema_version\":" + (c.schema_version ? JsonAnyValue(*c.schema_version) : "null");
    out += ",\"attribute_key_map\":" + (c.key_map ? JsonKeyMap(*c.key_map) : "null");
    out += ",\"resource\":" + JsonKeyValues(c.resource);
    out += ",\"attributes\":" + JsonKeyValues(c.attributes);
  }
  if (c.attempts > 1) out += ",\"attempts\":" + std::to_string(c.attempts);
  if (!c.problems.empty()) out += ",\"problems\":" + JsonStrings(c.problems, c.more_problems);
  if (!c.ok()) out += ",\"error\":" + JsonString(c.error);
  return out + "}";
}

std::string TextProcessContext(const ProcessContext& c) {
  std::string out = "process context: " + TextString(c.mapping) + " at " + Hex(c.address) + ": ";
  const std::string retried = c.attempts > 1 ? " (read in " + std::to_string(c.attempts) +
                                                   " attempts: it was being updated)"
                                             : "";
  if (!c.ok()) return out + "! error: " + TextString(c.error) + retried + "\n";
  out += "version " + std::to_string(c.version) + ", published at " +
         std::to_string(c.published_at) + " ns, schema " +
         (c.schema_version ? TextAnyValue(*c.schema_version) : "(none)") + retried + "\n";
  out += "  resource: " + TextKeyValues(c.resource) + "\n";
  if (!c.attributes.empty()) out += "  attributes: " + TextKeyValues(c.attributes) + "\n";
  if (c.key_map) {
    out += "  attribute keys:";
    if (c.key_map->empty()) out += " (none)";
    for (size_t i = 0; i < c.key_map->size(); ++i) {
      const auto& key = (*c.key_map)[i];
      out += " " + std::to_string(i) + "=" + (key ? TextString(*key) : "(not a string)");
    }
    out += "\n";
  } else {
    out += "  attribute keys: (no key map)\n";
  }
  for (const std::string& p : c.problems) out += "  ! problem: " + TextString(p) + "\n";
  if (c.more_problems != 0) {
    out += "  ! problem: and " + std::to_string(c.more_problems) + " more\n";
  }
  return out;
}

}  // namespace customlabels::reader
