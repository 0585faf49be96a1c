#include "node_checks.h"

#include <elf.h>

#include <map>

#include "format.h"

namespace customlabels::reader {

namespace {

constexpr const char* kNodeSchema = "nodejs_v1_dev";

std::string TlsSymbolLine(const ElfFile& elf, const char* name, uint64_t size, bool* pass) {
  const std::optional<ElfSymbol> s = elf.FindDynamicSymbol(name);
  *pass = s && s->type == STT_TLS && s->size == size && s->bind == STB_GLOBAL &&
          s->visibility == STV_DEFAULT && elf.FindTlsDescriptor(name).has_value();
  return ".dynsym has " + std::string(name) + ": global default-visibility TLS symbol of " +
         std::to_string(size) + " bytes, named by an R_" +
         (elf.machine() == EM_AARCH64 ? "AARCH64" : "X86_64") + "_TLSDESC relocation" +
         (s ? "" : " (missing)");
}

// The int attribute `key` of the process context, if there is one.
std::optional<int64_t> IntAttribute(const ProcessContext& c, const std::string& key) {
  for (const KeyValue& kv : c.attributes) {
    if (kv.key == key && kv.value.kind == AnyValue::Kind::kInt) return kv.value.integer;
  }
  return std::nullopt;
}

bool Troubled(const NodeWalk& w) {
  return w.status.rfind("malformed", 0) == 0 || w.status.rfind("unreadable", 0) == 0;
}

}  // namespace

std::vector<CheckLine> CheckNodeElf(const ElfFile& elf) {
  std::vector<CheckLine> out;
  if (!elf.FindDynamicSymbol(kNodeSymbol)) return out;
  for (const auto& [name, size] : {std::pair<const char*, uint64_t>{kNodeSymbol, kNodeStructBytes},
                                   {"custom_labels_als_handle", 8},
                                   {"custom_labels_als_identity_hash", 4}}) {
    bool pass = false;
    const std::string text = TlsSymbolLine(elf, name, size, &pass);
    out.push_back({pass, text});
  }
  return out;
}

std::vector<CheckLine> CheckNodeThreads(const std::vector<NodeThreadWalk>& threads,
                                        const ProcessContext* context) {
  std::vector<CheckLine> out;
  auto line = [&out](bool pass, std::string text) { out.push_back({pass, std::move(text)}); };
  size_t open = 0, closed = 0;
  std::map<int, size_t> slots;  // record_slot_offset -> threads
  for (const NodeThreadWalk& t : threads) {
    if (t.walk.status == "gate-closed") {
      ++closed;
      continue;
    }
    ++open;
    ++slots[t.walk.words.record_slot_offset];
    line(!Troubled(t.walk), "thread " + std::to_string(t.tid) + " publishes the Node.js walk (" +
                                kNodeSymbol + " gate " + Hex(t.walk.words.cped_slot) +
                                "): it ends \"" + TextString(t.walk.status) + "\"");
  }
  out.push_back({true,
                 std::to_string(open) + " thread(s) open the gate; the other " +
                     std::to_string(closed) + " never published (gate 0)",
                 true});
  if (context == nullptr || !context->ok() || !context->schema_version ||
      context->schema_version->bytes != kNodeSchema) {
    return out;
  }
  const std::optional<int64_t> record = IntAttribute(*context, "threadlocal.js_object_record_offset");
  const std::optional<int64_t> tagged = IntAttribute(*context, "threadlocal.tagged_size");
  const std::optional<int64_t> table = IntAttribute(*context, "threadlocal.js_map_table_offset");
  const std::optional<int64_t> header =
      IntAttribute(*context, "threadlocal.ordered_hash_map_header_size");
  line(tagged == 8 && table == 24 && header == 16,
       "the process context's V8 layout is Node.js's (tagged_size 8, js_map_table_offset 24, "
       "ordered_hash_map_header_size 16)");
  line(open > 0, std::string("schema ") + kNodeSchema + ": at least one thread publishes the walk");
  for (const auto& [slot, n] : slots) {
    line(record.has_value() && *record == slot,
         "threadlocal.js_object_record_offset (" +
             (record ? std::to_string(*record) : std::string("missing")) +
             ") is the record_slot_offset of " + std::to_string(n) + " thread(s) (" +
             std::to_string(slot) + ")");
  }
  return out;
}

}  // namespace customlabels::reader
