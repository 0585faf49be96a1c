#include "process_context.h"

#include <time.h>

#include <cstring>
#include <set>

#include "format.h"
#include "protobuf_reader.h"

namespace customlabels::reader {

namespace {

constexpr int kLiveAttempts = 20;

// Decodes the repeated KeyValue field `number` of `message` into `out`.
bool DecodeKeyValues(std::string_view message, uint32_t number, const char* what,
                     ProtoBudget* budget, std::vector<KeyValue>* out, std::string* error) {
  ProtoReader reader(message);
  ProtoField f;
  while (reader.Next(&f)) {
    if (f.number != number) continue;
    if (f.wire != ProtoField::kLengthDelimited) {
      *error = std::string(what) + " field " + std::to_string(number) + " at byte " +
               std::to_string(f.offset) + " has wire type " + WireName(f.wire);
      return false;
    }
    KeyValue kv;
    if (!DecodeKeyValue(f.bytes, 0, budget, &kv, error)) return false;
    out->push_back(std::move(kv));
  }
  if (!reader.error().empty()) {
    *error = std::string(what) + ": " + reader.error();
    return false;
  }
  return true;
}

void TakeKeyMap(const AnyValue& value, ProcessContext* c) {
  if (value.kind != AnyValue::Kind::kArray) {
    c->Problem(std::string(ProcessContext::kKeyMapKey) +
               " is not an array_value: thread attributes cannot be keyed");
    return;
  }
  AttributeKeyMap map;
  c->key_map_count = value.items.size();
  std::set<std::string> seen;
  for (size_t i = 0; i < value.items.size() && i < ProcessContext::kMaxKeys; ++i) {
    const AnyValue& item = value.items[i];
    if (item.kind != AnyValue::Kind::kString) {
      c->Problem("attribute key map element " + std::to_string(i) + " is not a string_value");
      map.emplace_back(std::nullopt);
      continue;
    }
    if (item.bytes.empty()) {
      c->Problem("attribute key map element " + std::to_string(i) + " is an empty string");
    }
    if (!seen.insert(item.bytes).second) {
      c->Problem("attribute key map element " + std::to_string(i) + " repeats key \"" + item.bytes +
                 "\"");
    }
    map.emplace_back(item.bytes);
  }
  if (value.items.size() > ProcessContext::kMaxKeys) {
    c->Problem("the attribute key map has " + std::to_string(value.items.size()) +
               " keys; key indexes are one byte, so only the first " +
               std::to_string(ProcessContext::kMaxKeys) + " are used");
  }
  c->key_map = std::move(map);
}

void SleepBriefly() {
  const timespec ms{0, 1000 * 1000};
  nanosleep(&ms, nullptr);
}

}  // namespace

bool ProcessContext::schema_accepted() const {
  return schema_version && schema_version->kind == AnyValue::Kind::kString &&
         (schema_version->bytes == kSchemaVersion || schema_version->bytes == kNodeSchemaVersion);
}

void ProcessContext::Problem(std::string note) {
  if (problems.size() < kMaxProblems) {
    problems.push_back(std::move(note));
  } else {
    ++more_problems;
  }
}

bool DecodeProcessContextPayload(std::string_view payload, ProcessContext* c) {
  ProtoBudget budget;
  std::vector<KeyValue> attributes;
  ProtoReader reader(payload);
  ProtoField f;
  std::string error;
  while (error.empty() && reader.Next(&f)) {
    if (f.number != 1 && f.number != 2) continue;
    if (f.wire != ProtoField::kLengthDelimited) {
      error = "ProcessContext field " + std::to_string(f.number) + " at byte " +
              std::to_string(f.offset) + " has wire type " + WireName(f.wire);
    } else if (f.number == 1) {
      // Resource: a message field seen twice merges (its attributes add up).
      DecodeKeyValues(f.bytes, 1, "Resource", &budget, &c->resource, &error);
    } else {
      KeyValue kv;
      if (DecodeKeyValue(f.bytes, 0, &budget, &kv, &error)) attributes.push_back(std::move(kv));
    }
  }
  if (error.empty() && !reader.error().empty()) error = "ProcessContext: " + reader.error();
  if (!error.empty()) {
    c->resource.clear();
    c->error = "the payload does not decode: " + error;
    return false;
  }
  for (KeyValue& kv : attributes) {
    if (kv.key == ProcessContext::kSchemaKey) {
      c->schema_version = kv.value;
    } else if (kv.key == ProcessContext::kKeyMapKey) {
      c->key_map.reset();
      c->key_map_published = true;
      TakeKeyMap(kv.value, c);
    } else {
      c->attributes.push_back(std::move(kv));
    }
  }
  if (c->schema_version && !c->schema_accepted()) {
    c->Problem(std::string(ProcessContext::kSchemaKey) + " is " +
               (c->schema_version->kind == AnyValue::Kind::kString
                    ? "\"" + c->schema_version->bytes + "\""
                    : "not a string_value") +
               "; readers accept \"" + ProcessContext::kSchemaVersion + "\" or \"" +
               ProcessContext::kNodeSchemaVersion + "\"");
  }
  return true;
}

ProcessContext ReadProcessContext(const MemorySource& memory, uint64_t address, int attempts,
                                  void (*pause)()) {
  ProcessContext c;
  c.address = address;
  std::string payload;
  bool consistent = false;
  int zero = 0;
  for (int attempt = 1; attempt <= attempts && !consistent; ++attempt) {
    if (attempt > 1 && pause != nullptr) pause();
    c.attempts = attempt;
    uint64_t first = 0;
    if (!memory.ReadValue(address + 16, &first)) {
      c.error = "cannot read the process context header at " + Hex(address);
      return c;
    }
    if (first == 0) {  // a writer is at work
      ++zero;
      continue;
    }
    unsigned char header[ProcessContext::kHeaderBytes];
    if (!memory.Read(address, header, sizeof(header))) {
      c.error = "cannot read the process context header at " + Hex(address);
      return c;
    }
    c.signature.assign(reinterpret_cast<const char*>(header), 8);
    std::memcpy(&c.version, header + 8, 4);
    std::memcpy(&c.payload_size, header + 12, 4);
    std::memcpy(&c.published_at, header + 16, 8);
    std::memcpy(&c.payload_address, header + 24, 8);
    const bool usable = c.signature == "OTEL_CTX" && c.version == ProcessContext::kVersion &&
                        c.payload_size != 0 && c.payload_size <= ProcessContext::kMaxPayloadBytes;
    bool payload_read = false;
    if (usable) {
      payload.assign(c.payload_size, '\0');
      payload_read = memory.Read(c.payload_address, payload.data(), payload.size());
    }
    uint64_t again = 0;
    if (!memory.ReadValue(address + 16, &again)) {
      c.error = "cannot read the process context header at " + Hex(address);
      return c;
    }
    if (again != first || c.published_at != first) continue;  // changed while read
    consistent = true;
    if (c.signature != "OTEL_CTX") {
      c.error = "the signature is \"" + c.signature + "\", not \"OTEL_CTX\"";
    } else if (c.version != ProcessContext::kVersion) {
      c.error = "version " + std::to_string(c.version) + ": this reader reads version 2";
    } else if (c.payload_size == 0 || c.payload_size > ProcessContext::kMaxPayloadBytes) {
      c.error = "payload_size " + std::to_string(c.payload_size) + " is not 1 to 65536";
    } else if (!payload_read) {
      c.error = "cannot read the " + std::to_string(c.payload_size) + "-byte payload at " +
                Hex(c.payload_address);
    }
  }
  if (!consistent) {
    c.error = zero == c.attempts ? "the process context was being updated (published_at 0) in "
                                 : "the process context kept changing while read, ";
    c.error += std::to_string(c.attempts) + " attempts";
    return c;
  }
  if (c.ok()) DecodeProcessContextPayload(payload, &c);
  return c;
}

bool IsProcessContextName(const Mapping& m) {
  if (m.path == "/memfd:OTEL_CTX") return true;
  return !m.deleted && (m.path == "[anon_shmem:OTEL_CTX]" || m.path == "[anon:OTEL_CTX]");
}

// The last, as the readers take it (opentelemetry-ebpf-profiler's
// processinfo.go reassigns the context for each mapping it reads).
const Mapping* FindProcessContextMapping(const std::vector<Mapping>& maps) {
  const Mapping* found = nullptr;
  for (const Mapping& m : maps) {
    if (IsProcessContextName(m) && (m.perms.size() < 3 || m.perms[2] != 'x')) found = &m;
  }
  return found;
}

std::optional<ProcessContext> ReadLiveProcessContext(pid_t pid) {
  std::string error;
  const std::vector<Mapping> maps = ReadMappings(pid, &error);
  const Mapping* m = FindProcessContextMapping(maps);
  if (m == nullptr) return std::nullopt;
  ProcessContext c = ReadProcessContext(ProcessMemory(pid), m->start, kLiveAttempts, SleepBriefly);
  c.mapping = m->deleted ? m->path + " (deleted)" : m->path;
  return c;
}

}  // namespace customlabels::reader
