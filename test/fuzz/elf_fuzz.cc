// libFuzzer target: the ELF parsing `customlabels check` does on a file it is
// given (and LocateAbi on the mapped addon), on arbitrary bytes: parse, both
// .dynsym lookups, the TLSDESC relocation, PT_TLS, VaddrOfOffset, ReadVaddr
// and the check lines built from them.
//
// Oracle: no crash, leak or undefined behaviour (ASan, UBSan), and every
// lookup agrees with a plain reference parser below that reads the whole
// buffer entry by entry (the real one reads on demand, in chunks, within a
// budget no input here can reach); a dynamic symbol found through a GNU hash
// table must be a defined symbol of that name, and one it does not find may
// exist only where such a table answered.
//
// clang-format off
// fuzz-sources: src/reader/elf_file.cc src/reader/elf_checks.cc src/reader/file_bytes.cc src/reader/memory_image.cc src/reader/abi_reader.cc src/reader/abi_names.cc src/reader/process.cc src/reader/label_set_decoder.cc src/reader/format.cc src/reader/label_views.cc src/reader/reader_profiles.cc src/reader/otel_record.cc src/reader/node_walk.cc src/core/node_walk.cc src/reader/parca_lookup.cc src/reader/reader_lookups.cc
// clang-format on
#include <elf.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reader/elf_checks.h"
#include "reader/elf_file.h"

namespace {

using customlabels::reader::CheckElf;
using customlabels::reader::ElfFile;
using customlabels::reader::TlsDescriptorType;

// A broken oracle names its line before aborting (libFuzzer keeps the input).
void RequireAt(bool ok, int line) {
  if (ok) return;
  std::fprintf(stderr, "elf_fuzz.cc:%d: the oracle does not hold\n", line);
  std::abort();
}
#define Require(ok) RequireAt((ok), __LINE__)

// Whole-buffer reference of what ElfFile is specified to find.
class Reference {
 public:
  explicit Reference(const std::string& bytes) : b_(bytes) {
    Elf64_Ehdr eh;
    if (!At(0, sizeof(eh), &eh)) return;
    machine_ = eh.e_machine;
    if (eh.e_phentsize >= sizeof(Elf64_Phdr)) {
      for (uint16_t i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph;
        if (!At(Offset(eh.e_phoff, i, eh.e_phentsize), sizeof(ph), &ph)) break;
        if (ph.p_type == PT_LOAD) loads_.push_back(ph);
      }
    }
    if (eh.e_shentsize >= sizeof(Elf64_Shdr)) {
      for (uint16_t i = 0; i < eh.e_shnum; ++i) {
        Elf64_Shdr sh;
        if (!At(Offset(eh.e_shoff, i, eh.e_shentsize), sizeof(sh), &sh)) break;
        sections_.push_back(sh);
      }
    }
  }

  // Every defined symbol `name` of the first SHT_DYNSYM, in table order.
  std::vector<Elf64_Sym> DynamicSymbols(std::string_view name) const {
    std::vector<Elf64_Sym> out;
    for (const Elf64_Shdr& s : sections_) {
      if (s.sh_type != SHT_DYNSYM) continue;
      if (s.sh_entsize < sizeof(Elf64_Sym) || s.sh_entsize > 8192) return out;
      for (uint64_t i = 0; i < s.sh_size / s.sh_entsize; ++i) {
        Elf64_Sym sym;
        if (!Entry(s, i, &sym)) break;
        if (sym.st_shndx != SHN_UNDEF && NameIs(s.sh_link, sym.st_name, name)) out.push_back(sym);
      }
      return out;  // only the first SHT_DYNSYM
    }
    return out;
  }

  // Whether a SHT_GNU_HASH section is linked to the first SHT_DYNSYM: then
  // its answer stands, even where a hostile table disagrees with a scan.
  bool DynamicSymbolsHashed() const {
    for (size_t i = 0; i < sections_.size(); ++i) {
      if (sections_[i].sh_type != SHT_DYNSYM) continue;
      for (const Elf64_Shdr& h : sections_) {
        if (h.sh_type == SHT_GNU_HASH && h.sh_link == i) return true;
      }
      return false;
    }
    return false;
  }

  std::optional<Elf64_Rela> FindTlsDescriptor(std::string_view name) const {
    for (const Elf64_Shdr& rela : sections_) {
      if (rela.sh_type != SHT_RELA || rela.sh_entsize < sizeof(Elf64_Rela) ||
          rela.sh_entsize > 8192 || rela.sh_link >= sections_.size()) {
        continue;
      }
      const Elf64_Shdr& symtab = sections_[rela.sh_link];
      if (symtab.sh_entsize < sizeof(Elf64_Sym)) continue;
      for (uint64_t i = 0; i < rela.sh_size / rela.sh_entsize; ++i) {
        Elf64_Rela r;
        if (!Entry(rela, i, &r)) break;
        if (ELF64_R_TYPE(r.r_info) != TlsDescriptorType(machine_)) continue;
        const uint64_t index = ELF64_R_SYM(r.r_info);
        Elf64_Sym sym;
        if (index < symtab.sh_size / symtab.sh_entsize &&
            At(Offset(symtab.sh_offset, index, symtab.sh_entsize), sizeof(sym), &sym) &&
            NameIs(symtab.sh_link, sym.st_name, name)) {
          return r;
        }
      }
    }
    return std::nullopt;
  }

  bool ReadVaddr(uint64_t vaddr, void* out, size_t size) const {
    for (const Elf64_Phdr& l : loads_) {
      if (vaddr >= l.p_vaddr && vaddr - l.p_vaddr <= l.p_filesz &&
          size <= l.p_filesz - (vaddr - l.p_vaddr)) {
        return At(Offset(l.p_offset, 1, vaddr - l.p_vaddr), size, out);
      }
    }
    return false;
  }

 private:
  // base + i * stride, or an offset no buffer reaches if that wraps.
  static uint64_t Offset(uint64_t base, uint64_t i, uint64_t stride) {
    if (stride != 0 && i > (UINT64_MAX - base) / stride) return UINT64_MAX;
    return base + i * stride;
  }
  bool At(uint64_t offset, uint64_t size, void* out) const {
    if (offset > b_.size() || size > b_.size() - offset) return false;
    std::memcpy(out, b_.data() + offset, size);
    return true;
  }
  // Entry i of a table: all of its sh_entsize bytes must be in the buffer.
  template <typename T>
  bool Entry(const Elf64_Shdr& s, uint64_t i, T* out) const {
    const uint64_t at = Offset(s.sh_offset, i, s.sh_entsize);
    if (at > b_.size() || s.sh_entsize > b_.size() - at) return false;
    std::memcpy(out, b_.data() + at, sizeof(T));
    return true;
  }
  bool NameIs(uint32_t strtab, uint64_t offset, std::string_view name) const {
    if (strtab >= sections_.size()) return false;
    const Elf64_Shdr& s = sections_[strtab];
    if (offset >= s.sh_size || name.size() >= s.sh_size - offset) return false;
    const uint64_t at = Offset(s.sh_offset, 1, offset);
    std::string buf(name.size() + 1, '\0');
    if (!At(at, buf.size(), buf.data())) return false;
    return buf.back() == '\0' && std::string_view(buf.data(), name.size()) == name;
  }

  const std::string& b_;
  uint16_t machine_ = 0;
  std::vector<Elf64_Phdr> loads_;
  std::vector<Elf64_Shdr> sections_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::string error;
  const std::optional<ElfFile> elf = ElfFile::FromBytes(bytes, &error);
  if (!elf) {
    Require(!error.empty());
    return 0;
  }
  const Reference ref(bytes);
  for (const char* name : {"custom_labels_abi_version", "custom_labels_current_set"}) {
    // Found: one of the defined symbols of that name (by a hash table, or
    // the first, by a scan). Not found: there is none, or a GNU hash table
    // answered (the scan is for files without one, or whose table does not
    // read as one).
    const auto got = elf->FindDynamicSymbol(name);
    const std::vector<Elf64_Sym> all = ref.DynamicSymbols(name);
    Require(got.has_value() || all.empty() || ref.DynamicSymbolsHashed());
    if (got) {
      bool among = false;
      for (const Elf64_Sym& want : all) {
        among = among || (got->value == want.st_value && got->size == want.st_size && got->section == want.st_shndx);
      }
      Require(got->name == name && among);
      if (!ref.DynamicSymbolsHashed()) {
        Require(got->value == all[0].st_value && got->size == all[0].st_size);
      }
      // What check reads at the symbol: its first bytes, as the reference does.
      unsigned char a[16] = {}, b[16] = {};
      const size_t n = got->size < sizeof(a) ? static_cast<size_t>(got->size) : sizeof(a);
      if (n == 0) continue;
      const bool read = elf->ReadVaddr(got->value, a, n);
      Require(read == ref.ReadVaddr(got->value, b, n));
      Require(!read || std::memcmp(a, b, n) == 0);
    }
  }
  const auto desc = elf->FindTlsDescriptor("custom_labels_current_set");
  const auto want = ref.FindTlsDescriptor("custom_labels_current_set");
  Require(desc.has_value() == want.has_value());
  if (desc)
    Require(desc->offset == want->r_offset && desc->type == TlsDescriptorType(elf->machine()));
  (void)elf->tls_size();
  for (uint64_t offset : {uint64_t{0}, uint64_t{4096}, uint64_t{size}, ~uint64_t{0}}) {
    (void)elf->VaddrOfOffset(offset);
  }
  const auto lines = CheckElf(*elf, "fuzz/customlabels.node");
  Require(lines.size() == 7);
  return 0;
}
