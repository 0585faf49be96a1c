#include "elf_file.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace customlabels::reader {

namespace {

template <typename T>
bool At(const std::vector<uint8_t>& data, uint64_t offset, T* out) {
  if (offset > data.size() || sizeof(T) > data.size() - offset) return false;
  std::memcpy(out, data.data() + offset, sizeof(T));
  return true;
}

std::string CString(const std::vector<uint8_t>& data, uint64_t offset, uint64_t limit) {
  std::string out;
  for (uint64_t i = offset; i < limit && i < data.size() && data[i] != 0; ++i) {
    out.push_back(static_cast<char>(data[i]));
  }
  return out;
}

}  // namespace

uint32_t TlsDescriptorType(uint16_t machine) {
  switch (machine) {
    case EM_X86_64:
      return R_X86_64_TLSDESC;
    case EM_AARCH64:
      return R_AARCH64_TLSDESC;
    default:
      return 0xffffffffu;
  }
}

const char* MachineName(uint16_t machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86-64";
    case EM_AARCH64:
      return "aarch64";
    default:
      return "unsupported";
  }
}

std::optional<ElfFile> ElfFile::Open(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open " + path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  ElfFile f;
  f.data_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  Elf64_Ehdr eh;
  if (!At(f.data_, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    *error = path + " is not an ELF file";
    return std::nullopt;
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    *error = path + " is not a little-endian ELF64 file";
    return std::nullopt;
  }
  f.machine_ = eh.e_machine;
  for (uint16_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!At(f.data_, eh.e_phoff + uint64_t{i} * eh.e_phentsize, &ph)) break;
    if (ph.p_type == PT_LOAD) f.loads_.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz});
    if (ph.p_type == PT_TLS) f.tls_size_ = ph.p_memsz;
  }
  std::vector<Elf64_Shdr> sections;
  for (uint16_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    if (!At(f.data_, eh.e_shoff + uint64_t{i} * eh.e_shentsize, &sh)) break;
    sections.push_back(sh);
  }
  if (sections.empty()) {
    *error = path + " has no section headers";
    return std::nullopt;
  }
  // Symbols of a symbol table section, with names from its linked strtab.
  auto symbols = [&f, &sections](const Elf64_Shdr& symtab) {
    std::vector<ElfSymbol> out;
    if (symtab.sh_link >= sections.size() || symtab.sh_entsize < sizeof(Elf64_Sym)) return out;
    const Elf64_Shdr& strtab = sections[symtab.sh_link];
    const uint64_t n = symtab.sh_size / symtab.sh_entsize;
    for (uint64_t i = 0; i < n; ++i) {
      Elf64_Sym s;
      if (!At(f.data_, symtab.sh_offset + i * symtab.sh_entsize, &s)) break;
      ElfSymbol sym;
      sym.name = CString(f.data_, strtab.sh_offset + s.st_name, strtab.sh_offset + strtab.sh_size);
      sym.value = s.st_value;
      sym.size = s.st_size;
      sym.type = ELF64_ST_TYPE(s.st_info);
      sym.bind = ELF64_ST_BIND(s.st_info);
      sym.visibility = ELF64_ST_VISIBILITY(s.st_other);
      sym.section = s.st_shndx;
      out.push_back(std::move(sym));
    }
    return out;
  };
  for (const Elf64_Shdr& sh : sections) {
    if (sh.sh_type == SHT_DYNSYM) f.dynsym_ = symbols(sh);
  }
  for (const Elf64_Shdr& sh : sections) {
    if (sh.sh_type != SHT_RELA || sh.sh_entsize < sizeof(Elf64_Rela)) continue;
    std::vector<ElfSymbol> syms;
    if (sh.sh_link < sections.size()) syms = symbols(sections[sh.sh_link]);
    const uint64_t n = sh.sh_size / sh.sh_entsize;
    for (uint64_t i = 0; i < n; ++i) {
      Elf64_Rela r;
      if (!At(f.data_, sh.sh_offset + i * sh.sh_entsize, &r)) break;
      ElfRelocation rel;
      rel.offset = r.r_offset;
      rel.type = static_cast<uint32_t>(ELF64_R_TYPE(r.r_info));
      const uint64_t index = ELF64_R_SYM(r.r_info);
      if (index < syms.size()) rel.symbol = syms[index].name;
      f.relocations_.push_back(std::move(rel));
    }
  }
  return f;
}

std::optional<uint64_t> ElfFile::VaddrOfOffset(uint64_t offset) const {
  for (const Load& l : loads_) {
    if (offset >= l.offset && offset < l.offset + (l.filesz == 0 ? 1 : l.filesz)) {
      return l.vaddr - l.offset;
    }
  }
  return std::nullopt;
}

const ElfSymbol* ElfFile::FindDynamicSymbol(const std::string& name) const {
  for (const ElfSymbol& s : dynsym_) {
    if (s.name == name && s.section != SHN_UNDEF) return &s;
  }
  return nullptr;
}

const ElfRelocation* ElfFile::FindTlsDescriptor(const std::string& symbol) const {
  const uint32_t type = TlsDescriptorType(machine_);
  for (const ElfRelocation& r : relocations_) {
    if (r.type == type && r.symbol == symbol) return &r;
  }
  return nullptr;
}

bool ElfFile::ReadVaddr(uint64_t vaddr, void* out, size_t size) const {
  for (const Load& l : loads_) {
    if (vaddr >= l.vaddr && vaddr - l.vaddr <= l.filesz && size <= l.filesz - (vaddr - l.vaddr)) {
      const uint64_t offset = l.offset + (vaddr - l.vaddr);
      if (offset + size > data_.size()) return false;
      std::memcpy(out, data_.data() + offset, size);
      return true;
    }
  }
  return false;
}

}  // namespace customlabels::reader
