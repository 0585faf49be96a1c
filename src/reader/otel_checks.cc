#include "otel_checks.h"

#include <elf.h>

#include <optional>
#include <set>

#include "abi_reader.h"
#include "format.h"

namespace customlabels::reader {

std::vector<CheckLine> CheckOtelElf(const ElfFile& elf) {
  std::vector<CheckLine> out;
  const std::optional<ElfSymbol> s = elf.FindDynamicSymbol(kOtelSymbol);
  if (!s) {
    out.push_back({true,
                   std::string(kOtelSymbol) +
                       " is not exported: an addon without the OpenTelemetry thread context",
                   true});
    return out;
  }
  out.push_back(
      {s->type == STT_TLS && s->size == 8 && s->bind == STB_GLOBAL && s->visibility == STV_DEFAULT,
       ".dynsym has " + std::string(kOtelSymbol) +
           ": global default-visibility TLS symbol of 8 bytes (size " + std::to_string(s->size) +
           ", " + (s->type == STT_TLS ? "TLS" : "not TLS") + ", " +
           (s->bind == STB_GLOBAL ? "global" : "not global") + ", " +
           (s->visibility == STV_DEFAULT ? "default" : "not default") + " visibility)"});
  out.push_back({elf.FindTlsDescriptor(kOtelSymbol).has_value(),
                 std::string("an R_") + (elf.machine() == EM_AARCH64 ? "AARCH64" : "X86_64") +
                     "_TLSDESC relocation names " + kOtelSymbol});
  return out;
}

std::vector<CheckLine> CheckProcessContext(const ProcessContext& c) {
  std::vector<CheckLine> out;
  auto line = [&out](bool pass, std::string text) { out.push_back({pass, std::move(text)}); };
  line(true, "a process context mapping: " + TextString(c.mapping) + " at " + Hex(c.address));
  if (!c.ok()) {
    line(false, "the process context is readable and well-formed: " + TextString(c.error));
    return out;
  }
  line(true, "header: signature OTEL_CTX, version 2, " + std::to_string(c.payload_size) +
                 "-byte payload, published at " + std::to_string(c.published_at) + " ns" +
                 (c.attempts > 1 ? " (read in " + std::to_string(c.attempts) + " attempts)" : ""));
  line(true, "the payload decodes as a ProcessContext (" + std::to_string(c.resource.size()) +
                 " resource attributes)");
  const bool node = c.schema_version && c.schema_version->kind == AnyValue::Kind::kString &&
                    c.schema_version->bytes == ProcessContext::kNodeSchemaVersion;
  line(c.schema_accepted(),
       std::string(ProcessContext::kSchemaKey) + " is \"" +
           (node ? ProcessContext::kNodeSchemaVersion : ProcessContext::kSchemaVersion) + "\"" +
           (!c.schema_version                                   ? " (missing)"
            : c.schema_version->kind != AnyValue::Kind::kString ? " (not a string_value)"
            : c.schema_accepted()                               ? ""
                                  : " (\"" + TextString(c.schema_version->bytes) + "\")"));
  std::vector<std::string> faults;
  if (!c.key_map_published) {
    faults.push_back("missing");
  } else if (!c.key_map) {
    faults.push_back("not an array_value");
  } else {
    std::set<std::string> seen;
    size_t not_strings = 0, empty = 0, repeated = 0;
    for (const auto& key : *c.key_map) {
      if (!key) {
        ++not_strings;
      } else {
        if (key->empty()) ++empty;
        if (!seen.insert(*key).second) ++repeated;
      }
    }
    if (c.key_map_count > ProcessContext::kMaxKeys) {
      faults.push_back(std::to_string(c.key_map_count) + " keys, over 256");
    }
    if (not_strings != 0) faults.push_back(std::to_string(not_strings) + " not string_value");
    if (empty != 0) faults.push_back(std::to_string(empty) + " empty");
    if (repeated != 0) faults.push_back(std::to_string(repeated) + " repeated");
  }
  std::string text = std::string(ProcessContext::kKeyMapKey) +
                     " is an array of at most 256 distinct non-empty strings";
  if (faults.empty()) {
    text +=
        " (" + std::to_string(c.key_map->size()) + (c.key_map->size() == 1 ? " key)" : " keys)");
  } else {
    text += " (";
    for (size_t i = 0; i < faults.size(); ++i) text += (i ? ", " : "") + faults[i];
    text += ")";
  }
  line(faults.empty(), text);
  return out;
}

}  // namespace customlabels::reader
