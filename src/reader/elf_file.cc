#include "elf_file.h"

#include <elf.h>

#include <algorithm>
#include <cstring>

#include "file_bytes.h"
#include "memory_image.h"

namespace customlabels::reader {

namespace {

// Entries read per MemorySource call while scanning a table.
constexpr uint64_t kChunkBytes = 8192;

// Calls `visit(entry_bytes)` for each of the `entsize`-byte entries of the
// table at [offset, offset + size), read in chunks, until `visit` returns
// true (found), the table or `*budget` is exhausted, or an entry cannot be
// read (a table that runs past the end of the file ends there).
template <typename Visit>
bool Scan(const MemorySource& bytes, uint64_t offset, uint64_t size, uint64_t entsize,
          uint64_t* budget, Visit visit) {
  if (entsize == 0 || entsize > kChunkBytes) return false;
  const uint64_t count = size / entsize;
  const uint64_t per_chunk = kChunkBytes / entsize;
  unsigned char chunk[kChunkBytes];
  for (uint64_t i = 0; i < count && *budget != 0;) {
    const uint64_t n = std::min({per_chunk, count - i, *budget});
    if (i > (UINT64_MAX - offset) / entsize) return false;
    const uint64_t at = offset + i * entsize;
    uint64_t readable = n;
    if (!bytes.Read(at, chunk, static_cast<size_t>(n * entsize))) {
      readable = 0;  // up to where the table stops being readable
      while (readable < n && readable * entsize <= UINT64_MAX - at &&
             bytes.Read(at + readable * entsize, chunk + readable * entsize, entsize)) {
        ++readable;
      }
    }
    *budget -= readable;
    for (uint64_t k = 0; k < readable; ++k) {
      if (visit(chunk + k * entsize)) return true;
    }
    if (readable < n) return false;
    i += n;
  }
  return false;
}

ElfSymbol SymbolOf(const Elf64_Sym& s, std::string_view name) {
  ElfSymbol sym;
  sym.name = std::string(name);
  sym.value = s.st_value;
  sym.size = s.st_size;
  sym.type = ELF64_ST_TYPE(s.st_info);
  sym.bind = ELF64_ST_BIND(s.st_info);
  sym.visibility = ELF64_ST_VISIBILITY(s.st_other);
  sym.section = s.st_shndx;
  return sym;
}

// The GNU hash of a symbol name (the dynamic linker's dl_new_hash).
uint32_t GnuHash(std::string_view name) {
  uint32_t h = 5381;
  for (const char c : name) h = h * 33 + static_cast<unsigned char>(c);
  return h;
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
  std::unique_ptr<FileBytes> bytes = FileBytes::Open(path, error);
  if (bytes == nullptr) return std::nullopt;
  return Parse(std::move(bytes), path, error);
}

std::optional<ElfFile> ElfFile::FromBytes(std::string bytes, std::string* error) {
  auto image = std::make_unique<MemoryImage>();
  if (!bytes.empty()) image->Add(0, std::move(bytes));
  return Parse(std::move(image), "the input", error);
}

std::optional<ElfFile> ElfFile::Parse(std::unique_ptr<MemorySource> bytes, const std::string& name,
                                      std::string* error) {
  ElfFile f(std::move(bytes));
  const MemorySource& in = *f.bytes_;
  Elf64_Ehdr eh;
  if (!in.ReadValue(0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    *error = name + " is not an ELF file";
    return std::nullopt;
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    *error = name + " is not a little-endian ELF64 file";
    return std::nullopt;
  }
  f.machine_ = eh.e_machine;
  if (eh.e_phentsize >= sizeof(Elf64_Phdr)) {
    for (uint16_t i = 0; i < eh.e_phnum; ++i) {
      Elf64_Phdr ph;
      if (eh.e_phoff > UINT64_MAX - uint64_t{i} * eh.e_phentsize ||
          !in.ReadValue(eh.e_phoff + uint64_t{i} * eh.e_phentsize, &ph)) {
        break;
      }
      if (ph.p_type == PT_LOAD) f.loads_.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz});
      if (ph.p_type == PT_TLS) {
        f.tls_size_ = ph.p_memsz;
        f.tls_align_ = ph.p_align;
      }
    }
  }
  if (eh.e_shentsize >= sizeof(Elf64_Shdr)) {
    for (uint16_t i = 0; i < eh.e_shnum; ++i) {
      Elf64_Shdr sh;
      if (eh.e_shoff > UINT64_MAX - uint64_t{i} * eh.e_shentsize ||
          !in.ReadValue(eh.e_shoff + uint64_t{i} * eh.e_shentsize, &sh)) {
        break;
      }
      f.sections_.push_back({sh.sh_type, sh.sh_link, sh.sh_offset, sh.sh_size, sh.sh_entsize});
    }
  }
  if (f.sections_.empty()) {
    *error = name + " has no section headers";
    return std::nullopt;
  }
  return f;
}

std::optional<uint64_t> ElfFile::VaddrOfOffset(uint64_t offset) const {
  for (const Load& l : loads_) {
    if (offset >= l.offset && offset - l.offset < std::max<uint64_t>(l.filesz, 1)) {
      return l.vaddr - l.offset;
    }
  }
  return std::nullopt;
}

bool ElfFile::NameIs(uint32_t strtab, uint64_t offset, std::string_view name) const {
  if (strtab >= sections_.size()) return false;
  const Section& s = sections_[strtab];
  // The name and its NUL must lie inside the string table.
  if (offset >= s.size || name.size() >= s.size - offset || s.offset > UINT64_MAX - offset) {
    return false;
  }
  char buf[256];
  if (name.size() + 1 > sizeof(buf)) return false;
  if (!bytes_->Read(s.offset + offset, buf, name.size() + 1)) return false;
  return buf[name.size()] == '\0' && std::memcmp(buf, name.data(), name.size()) == 0;
}

std::optional<ElfSymbol> ElfFile::FindDynamicSymbol(std::string_view name) const {
  const auto table = std::find_if(sections_.begin(), sections_.end(),
                                  [](const Section& s) { return s.type == SHT_DYNSYM; });
  if (table != sections_.end()) {
    bool usable = false;
    std::optional<ElfSymbol> found =
        FindHashedSymbol(static_cast<size_t>(table - sections_.begin()), name, &usable);
    if (usable) return found;
  }
  return FindSymbol(SHT_DYNSYM, name, -1);
}

// The table: nbuckets, symoffset, bloom_size, bloom_shift (uint32 each),
// bloom_size 64-bit bloom words, nbuckets uint32 buckets (the first symbol
// index of each, 0: none), then one uint32 per symbol from symoffset on:
// its hash with bit 0 set on the last symbol of a bucket's chain. Every
// index and offset is checked against the sections: the file is untrusted.
std::optional<ElfSymbol> ElfFile::FindHashedSymbol(size_t table, std::string_view name,
                                                   bool* usable) const {
  *usable = false;
  const Section& symtab = sections_[table];
  const auto hash = std::find_if(sections_.begin(), sections_.end(), [table](const Section& s) {
    return s.type == SHT_GNU_HASH && s.link == table;
  });
  // (Entries as a scan takes them: whole, of at most kChunkBytes.)
  if (hash == sections_.end() || symtab.entsize < sizeof(Elf64_Sym) || symtab.entsize > kChunkBytes) {
    return std::nullopt;
  }
  uint32_t header[4];
  if (hash->size < sizeof(header) || !bytes_->Read(hash->offset, header, sizeof(header))) {
    return std::nullopt;
  }
  const uint64_t nbuckets = header[0], symoffset = header[1], bloom_words = header[2];
  const uint64_t nsyms = symtab.size / symtab.entsize;
  const uint64_t buckets_at = sizeof(header) + bloom_words * 8;
  const uint64_t chains_at = buckets_at + nbuckets * 4;  // no wrap: each term < 2^35
  if (nbuckets == 0 || chains_at > hash->size || hash->offset > UINT64_MAX - hash->size) {
    return std::nullopt;
  }
  const uint32_t h = GnuHash(name);
  uint32_t index = 0;
  if (!bytes_->ReadValue(hash->offset + buckets_at + (h % nbuckets) * 4, &index)) return std::nullopt;
  if (index == 0) {
    *usable = true;  // no symbol has a hash in this bucket
    return std::nullopt;
  }
  for (uint64_t i = index; i < nsyms && i - index < kMaxScannedEntries; ++i) {
    if (i < symoffset) return std::nullopt;
    const uint64_t chain = chains_at + (i - symoffset) * 4;
    uint32_t chain_hash = 0;
    if (chain > hash->size - 4 || !bytes_->ReadValue(hash->offset + chain, &chain_hash)) {
      return std::nullopt;
    }
    if ((chain_hash | 1) == (h | 1)) {
      unsigned char entry[kChunkBytes];
      if (symtab.offset > UINT64_MAX - i * symtab.entsize ||
          !bytes_->Read(symtab.offset + i * symtab.entsize, entry, static_cast<size_t>(symtab.entsize))) {
        return std::nullopt;
      }
      Elf64_Sym s;
      std::memcpy(&s, entry, sizeof(s));
      if (s.st_shndx != SHN_UNDEF && NameIs(symtab.link, s.st_name, name)) {
        *usable = true;
        return SymbolOf(s, name);
      }
    }
    if ((chain_hash & 1) != 0) {
      *usable = true;  // the end of the bucket's chain
      return std::nullopt;
    }
  }
  return std::nullopt;  // a chain that runs past the symbol table (or the budget)
}

std::optional<ElfSymbol> ElfFile::FindStaticSymbol(std::string_view name, unsigned type) const {
  return FindSymbol(SHT_SYMTAB, name, static_cast<int>(type));
}

std::optional<ElfSymbol> ElfFile::FindSymbol(uint32_t section_type, std::string_view name,
                                             int type) const {
  const auto table = std::find_if(sections_.begin(), sections_.end(), [section_type](const Section& s) {
    return s.type == section_type;
  });
  if (table == sections_.end() || table->entsize < sizeof(Elf64_Sym)) return std::nullopt;
  std::optional<ElfSymbol> found;
  uint64_t budget = kMaxScannedEntries;
  Scan(*bytes_, table->offset, table->size, table->entsize, &budget,
       [&](const unsigned char* entry) {
         Elf64_Sym s;
         std::memcpy(&s, entry, sizeof(s));
         if (s.st_shndx == SHN_UNDEF) return false;
         if (type >= 0 && ELF64_ST_TYPE(s.st_info) != static_cast<unsigned>(type)) return false;
         if (!NameIs(table->link, s.st_name, name)) return false;
         found = SymbolOf(s, name);
         return true;
       });
  return found;
}

std::optional<ElfRelocation> ElfFile::FindTlsDescriptor(std::string_view symbol) const {
  const uint32_t type = TlsDescriptorType(machine_);
  uint64_t budget = kMaxScannedEntries;
  for (const Section& rela : sections_) {
    if (rela.type != SHT_RELA || rela.entsize < sizeof(Elf64_Rela)) continue;
    if (rela.link >= sections_.size()) continue;
    const Section& symtab = sections_[rela.link];
    if (symtab.entsize < sizeof(Elf64_Sym)) continue;
    std::optional<ElfRelocation> found;
    Scan(*bytes_, rela.offset, rela.size, rela.entsize, &budget, [&](const unsigned char* entry) {
      Elf64_Rela r;
      std::memcpy(&r, entry, sizeof(r));
      if (ELF64_R_TYPE(r.r_info) != type) return false;
      const uint64_t index = ELF64_R_SYM(r.r_info);
      Elf64_Sym s;
      if (index >= symtab.size / symtab.entsize ||
          symtab.offset > UINT64_MAX - index * symtab.entsize ||
          !bytes_->ReadValue(symtab.offset + index * symtab.entsize, &s) ||
          !NameIs(symtab.link, s.st_name, symbol)) {
        return false;
      }
      found = ElfRelocation{r.r_offset, type, std::string(symbol)};
      return true;
    });
    if (found) return found;
    if (budget == 0) break;
  }
  return std::nullopt;
}

bool ElfFile::ReadVaddr(uint64_t vaddr, void* out, size_t size) const {
  for (const Load& l : loads_) {
    if (vaddr >= l.vaddr && vaddr - l.vaddr <= l.filesz && size <= l.filesz - (vaddr - l.vaddr)) {
      const uint64_t delta = vaddr - l.vaddr;
      if (l.offset > UINT64_MAX - delta) return false;
      return bytes_->Read(l.offset + delta, out, size);
    }
  }
  return false;
}

}  // namespace customlabels::reader
