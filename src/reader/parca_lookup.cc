#include "parca_lookup.h"

#include <elf.h>

#include <cstring>
#include <regex>

#include "abi_names.h"
#include "process.h"
#include "reader_lookups.h"

namespace customlabels::reader {

namespace {

constexpr const char* kAlsHandleSymbol = "custom_labels_als_handle";
constexpr const char* kAlsHashSymbol = "custom_labels_als_identity_hash";

// Go's regexp.MatchString: the pattern anywhere in the name.
bool Matches(const char* pattern, const std::string& path) {
  return std::regex_search(path, std::regex(pattern));
}

bool IsSmi(uint64_t word) { return (word & 0xffffffffULL) == 0; }
int32_t SmiValue(uint64_t word) { return static_cast<int32_t>(word >> 32); }
// The fork's eBPF C does this arithmetic in 32-bit ints, which wrap there:
// the same here, without C++'s undefined behaviour.
int32_t Wrap32(uint32_t v) { return static_cast<int32_t>(v); }
// `int` times a constant, as a 64-bit address offset (sign-extended).
uint64_t Scaled(uint32_t factor, int32_t v) {
  return static_cast<uint64_t>(static_cast<int64_t>(Wrap32(factor * static_cast<uint32_t>(v))));
}

uint64_t RoundUp(uint64_t value, uint64_t multiple) {
  return multiple == 0 ? value : (value + multiple - 1) / multiple * multiple;
}

// pfelf AdjustTLSSymbol: the thread pointer's offset of a TLS symbol of the
// main executable.
int64_t AdjustTlsSymbol(const ElfFile& elf, const ElfSymbol& sym) {
  if (elf.machine() == EM_AARCH64) return static_cast<int64_t>(sym.value);
  return static_cast<int64_t>(sym.value) -
         static_cast<int64_t>(RoundUp(elf.tls_size().value_or(0), elf.tls_align().value_or(0)));
}

// lookupRelevantSymbols: the dynamic symbol table first, then .symtab.
std::optional<ElfSymbol> LookupRelevant(const ElfFile& elf, const char* name, unsigned type) {
  std::optional<ElfSymbol> s = elf.FindDynamicSymbol(name);
  if (!s) s = elf.FindStaticSymbol(name, type);
  return s;
}

// The V8 loader's gate (v8.go Loader): V8's version symbols, V8 >= 8.1.
bool LoadV8(const ElfFile& node, std::string* error) {
  uint32_t v[3] = {};
  const char* names[3] = {"_ZN2v88internal7Version6major_E", "_ZN2v88internal7Version6minor_E",
                          "_ZN2v88internal7Version6build_E"};
  for (int i = 0; i < 3; ++i) {
    const std::optional<ElfSymbol> s = node.FindDynamicSymbol(names[i]);
    if (!s || s->size < 4 || !node.ReadVaddr(s->value, &v[i], 4)) {
      *error = std::string("unable to read '") + names[i] + "'";
      return false;
    }
  }
  const uint32_t version = v[0] * 0x1000000 + v[1] * 0x10000 + v[2];
  if (v[0] > 0xff || v[1] > 0xff || v[2] > 0xffff || version < 0x080100) {
    *error = "V8 " + std::to_string(v[0]) + "." + std::to_string(v[1]) + " is not supported";
    return false;
  }
  return true;
}

// loadNodeClData: the major, its offsets and the isolate symbol.
void LoadNodeClData(const ElfFile& node, ParcaSetup* s) {
  const ParcaLookup& p = ParcaFork();
  const std::optional<ElfSymbol> version = LookupRelevant(node, p.version_symbol, STT_OBJECT);
  uint32_t words[3] = {};
  if (!version) {
    s->node_error = "Node version symbol not found";
    return;
  }
  if (version->size < p.version_symbol_min_size || !node.ReadVaddr(version->value, words, 12)) {
    s->node_error = "Node version symbol size too small: " + std::to_string(version->size);
    return;
  }
  s->version = NodeVersion{words[0], words[1], words[2]};
  const ParcaMajorOffsets* offsets = ParcaOffsetsFor(words[0]);
  if (offsets == nullptr) {
    s->node_error = "Unsupported Node major version: " + std::to_string(words[0]);
    return;
  }
  s->cped_offset = offsets->cped_offset;
  s->wrapped_object_offset = offsets->wrapped_object_offset;
  // Where the symbol really is, whatever the fork looks at.
  std::optional<ElfSymbol> here = node.FindDynamicSymbol(p.isolate_symbol);
  s->isolate_table = here ? ".dynsym" : "";
  if (!here) {
    here = node.FindStaticSymbol(p.isolate_symbol, STT_TLS);
    if (here) s->isolate_table = ".symtab";
  }
  if (here) s->isolate_offset_here = AdjustTlsSymbol(node, *here);
  const std::optional<ElfSymbol> used = words[0] < p.isolate_in_symtab_from_major
                                            ? node.FindDynamicSymbol(p.isolate_symbol)
                                            : here;
  if (!used) {
    s->node_error = words[0] < p.isolate_in_symtab_from_major
                        ? "failed to look up g_current_isolate: symbol not found"
                        : "couldn't find g_current_isolate (in major >= 26)";
    return;
  }
  s->isolate_offset = AdjustTlsSymbol(node, *used);
}

}  // namespace

std::string NodeVersion::text() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

ParcaSetup SetUpParcaFrom(const std::string& addon_path, const ElfFile& addon, uint64_t addon_base,
                          const std::string& node_path, const ElfFile* node,
                          const MemorySource& memory) {
  const ParcaLookup& p = ParcaFork();
  ParcaSetup s;
  s.addon_matches = Matches(p.addon_pattern, addon_path) && !Matches(p.native_library_pattern, addon_path);
  const auto descriptor_argument = [&](const char* symbol, uint64_t* out) {
    const std::optional<ElfRelocation> r = addon.FindTlsDescriptor(symbol);
    return r && memory.ReadValue(addon_base + r->offset + 8, out);
  };
  if (s.addon_matches) {
    s.addon_matches = descriptor_argument(kCurrentSetSymbol, &s.current_set_offset);
    s.has_als_data = descriptor_argument(kAlsHandleSymbol, &s.als_handle_offset) &&
                     descriptor_argument(kAlsHashSymbol, &s.als_hash_offset);
  }
  s.node_path = node_path;
  if (node == nullptr) {
    s.v8_error = "no mapped file matches " + std::string(p.node_pattern);
    return s;
  }
  s.v8_loaded = LoadV8(*node, &s.v8_error);
  if (s.v8_loaded) LoadNodeClData(*node, &s);
  return s;
}

ParcaSetup SetUpParca(pid_t pid, uint64_t addon_base, const MemorySource& memory) {
  std::string error;
  const std::vector<Mapping> maps = ReadMappings(pid, &error);
  const Mapping* node = nullptr;
  const Mapping* addon = nullptr;
  for (const Mapping& m : maps) {
    if (m.path.empty()) continue;
    if (std::regex_search(m.path, std::regex(ParcaFork().node_pattern)) &&
        (node == nullptr || m.start < node->start)) {
      node = &m;
    }
    if (IsAddonFileName(m.path) && (addon == nullptr || m.start < addon->start)) addon = &m;
  }
  const auto open = [pid](const Mapping& m, std::string* why) {
    char range[64];
    std::snprintf(range, sizeof(range), "%llx-%llx", static_cast<unsigned long long>(m.start),
                  static_cast<unsigned long long>(m.end));
    std::optional<ElfFile> elf =
        ElfFile::Open("/proc/" + std::to_string(pid) + "/map_files/" + range, why);
    if (!elf) elf = ElfFile::Open(m.path, why);
    return elf;
  };
  std::optional<ElfFile> addon_elf = addon ? open(*addon, &error) : std::nullopt;
  std::optional<ElfFile> node_elf = node ? open(*node, &error) : std::nullopt;
  if (!addon_elf) {
    ParcaSetup s;
    s.v8_error = "the addon's file cannot be read";
    return s;
  }
  return SetUpParcaFrom(addon->path, *addon_elf, addon_base, node ? node->path : "",
                        node_elf ? &*node_elf : nullptr, memory);
}

ParcaThread ReadParcaThread(const ParcaSetup& s, uint16_t machine, uint64_t tp,
                            const MemorySource& memory) {
  const ParcaLookup& p = ParcaFork();
  ParcaThread t;
  // addr_for_tls_symbol(offset, dtv): tp + offset, or through the DTV's
  // block of the main executable.
  const auto tls = [&](uint64_t offset, bool dtv, uint64_t* out) {
    if (!dtv) {
      *out = tp + offset;
      return true;
    }
    uint64_t dtv_address = 0, block = 0;
    if (!memory.ReadValue(tp, &dtv_address) ||
        !memory.ReadValue(dtv_address + p.dtv_block_at, &block)) {
      return false;
    }
    *out = block + offset;
    return true;
  };
  const auto has_set_header = [&memory](uint64_t set) {
    uint64_t header[3];
    return set != 0 && memory.Read(set, header, sizeof(header));
  };
  uint64_t address = 0;
  if (s.addon_matches && tls(s.current_set_offset, machine == EM_AARCH64, &address) &&
      memory.ReadValue(address, &t.native_set)) {
    t.native_read = true;
    if (has_set_header(t.native_set)) {
      t.set = t.native_set;
      t.via = kCurrentSetSymbol;
    }
  }
  if (!s.isolate_table.empty()) {
    uint64_t at = 0;
    if (tls(static_cast<uint64_t>(s.isolate_offset_here), true, &at)) {
      memory.ReadValue(at, &t.isolate_here);
    }
  }
  if (!s.walks()) {
    t.walk = !s.addon_matches  ? "off: the addon's file name does not match its pattern"
             : !s.v8_loaded    ? "off: its V8 loader takes no file of this process (" + s.v8_error + ")"
                               : "off: the addon has no custom_labels_als_handle relocation";
    return t;
  }
  const auto fail = [&t](const char* why) {
    t.walk = why;
    return t;
  };
  // get_v8_cped_address
  uint64_t isolate_at = 0;
  if (!tls(static_cast<uint64_t>(s.isolate_offset), true, &isolate_at) ||
      !memory.ReadValue(isolate_at, &t.isolate) ||
      !memory.ReadValue(t.isolate + s.cped_offset, &t.cped) || t.cped == 0) {
    return fail("failed to get v8 CPED address");
  }
  uint64_t table = 0, buckets_word = 0;
  if (!memory.ReadValue(t.cped + p.frame_table_at, &table)) {
    return fail("failed to read cped table addr");
  }
  const uint64_t buckets_at = table + p.table_buckets_at;
  const uint64_t first_bucket = buckets_at + 8;
  if (!memory.ReadValue(buckets_at, &buckets_word)) return fail("failed to read n buckets");
  if (!IsSmi(buckets_word)) return fail("N buckets is not a smi");
  const int32_t buckets = SmiValue(buckets_word);
  const uint32_t mask = static_cast<uint32_t>(buckets) - 1;
  if ((static_cast<uint32_t>(buckets) & mask) != 0) return fail("N buckets is not a power of two");
  int32_t hash = 0;
  uint64_t handle = 0, identity = 0;
  if (!memory.ReadValue(tp + s.als_hash_offset, &hash)) return fail("failed to read hash");
  if (!memory.ReadValue(tp + s.als_handle_offset, &handle)) {
    return fail("failed to read als handle pointer");
  }
  if (!memory.ReadValue(handle, &identity)) return fail("failed to read als identity");
  const int32_t bucket = Wrap32(static_cast<uint32_t>(hash) & mask);
  uint64_t index_at = first_bucket + Scaled(8, bucket);
  uint64_t value = 0;
  int tries = 0;
  for (; tries < p.max_tries; ++tries) {
    uint64_t index_word = 0;
    if (!memory.ReadValue(index_at, &index_word)) return fail("failed to read next entry index");
    if (!IsSmi(index_word)) return fail("entry index is not a smi");
    const int32_t index = SmiValue(index_word);
    if (index < 0) return fail("ALS not found in map");
    const uint64_t entry =
        first_bucket + Scaled(8, buckets) + 24 * static_cast<uint64_t>(static_cast<int64_t>(index));
    uint64_t e[3];
    if (!memory.Read(entry, e, sizeof(e))) return fail("failed to read entry");
    if (e[0] == identity) {
      value = e[1];
      break;
    }
    index_at = entry + 16;
  }
  if (tries == p.max_tries) return fail("couldn't find ls after searching max buckets");
  uint64_t wrap = 0, token = 0;
  if (!memory.ReadValue(value - 1 + s.wrapped_object_offset, &wrap)) {
    return fail("failed to find ClWrap");
  }
  if (!memory.ReadValue(wrap + p.token_at, &token)) return fail("failed reading token");
  if (token != p.token) return fail("not a label set");
  if (!memory.ReadValue(wrap + p.set_at, &t.walk_set)) return fail("failed reading cl ptr");
  if (!has_set_header(t.walk_set)) return fail("failed to read labelset into trace");
  t.walk = "found";
  t.set = t.walk_set;
  t.via = "its Node walk";
  return t;
}

}  // namespace customlabels::reader
