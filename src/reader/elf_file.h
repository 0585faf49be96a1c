// Reads what the Custom Label ABI needs from an ELF64 shared object: .dynsym,
// the RELA sections named in the section headers, PT_TLS and the bytes at a
// virtual address. The bytes are untrusted and read on demand through a
// MemorySource (a file, or bytes in memory for fuzzing): parsing keeps only
// the headers, every lookup scans a bounded number of entries, and nothing is
// allocated from a size the file states. No Node.js, no process access.
#ifndef CUSTOMLABELS_READER_ELF_FILE_H_
#define CUSTOMLABELS_READER_ELF_FILE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memory_source.h"

namespace customlabels::reader {

struct ElfSymbol {
  std::string name;
  uint64_t value = 0;
  uint64_t size = 0;
  unsigned type = 0;        // STT_*
  unsigned bind = 0;        // STB_*
  unsigned visibility = 0;  // STV_*
  uint16_t section = 0;     // st_shndx
};

struct ElfRelocation {
  uint64_t offset = 0;
  uint32_t type = 0;
  std::string symbol;
};

class ElfFile final {
 public:
  // Most symbol or relocation entries one lookup scans (all tables together).
  static constexpr uint64_t kMaxScannedEntries = uint64_t{1} << 22;

  // Parses the file at `path`; on failure returns nullopt and says why.
  static std::optional<ElfFile> Open(const std::string& path, std::string* error);
  // Parses `bytes` (`name` is used in messages).
  static std::optional<ElfFile> Parse(std::unique_ptr<MemorySource> bytes, const std::string& name,
                                      std::string* error);
  static std::optional<ElfFile> FromBytes(std::string bytes, std::string* error);

  uint16_t machine() const { return machine_; }
  // p_memsz of PT_TLS, if there is one.
  std::optional<uint64_t> tls_size() const { return tls_size_; }
  // p_align of PT_TLS, if there is one.
  std::optional<uint64_t> tls_align() const { return tls_align_; }
  // p_vaddr - p_offset of the PT_LOAD that maps file offset `offset`.
  std::optional<uint64_t> VaddrOfOffset(uint64_t offset) const;

  // The defined symbol `name` of the (first) SHT_DYNSYM section: through
  // its GNU hash table (a few reads), or where there is none or it does not
  // read as one, by a scan of every entry (a read per defined symbol).
  std::optional<ElfSymbol> FindDynamicSymbol(std::string_view name) const;
  // The defined symbol `name` of type `type` (STT_*) of the (first)
  // SHT_SYMTAB section, which stripped files lack. Only the names of
  // symbols of that type are read, so a .symtab of 200,000 entries costs
  // one pass over its entries, not one read per name.
  std::optional<ElfSymbol> FindStaticSymbol(std::string_view name, unsigned type) const;
  // The first TLSDESC relocation (R_X86_64_TLSDESC / R_AARCH64_TLSDESC) of
  // any SHT_RELA section that names `symbol`.
  std::optional<ElfRelocation> FindTlsDescriptor(std::string_view symbol) const;
  // Reads file bytes that back virtual address `vaddr` (initialized data).
  bool ReadVaddr(uint64_t vaddr, void* out, size_t size) const;

 private:
  struct Load {
    uint64_t vaddr, offset, filesz;
  };
  struct Section {
    uint32_t type;
    uint32_t link;
    uint64_t offset, size, entsize;
  };
  explicit ElfFile(std::unique_ptr<MemorySource> bytes) : bytes_(std::move(bytes)) {}
  // Whether the string at `offset` of string table section `strtab` is `name`.
  bool NameIs(uint32_t strtab, uint64_t offset, std::string_view name) const;
  // The defined symbol `name` of the first section of `section_type`,
  // among symbols of type `type` (any type if negative).
  std::optional<ElfSymbol> FindSymbol(uint32_t section_type, std::string_view name,
                                      int type) const;
  // `name` through the SHT_GNU_HASH section linked to symbol table
  // sections_[table]; `*usable` false when there is none or it is not
  // consistent (then the answer is the caller's scan).
  std::optional<ElfSymbol> FindHashedSymbol(size_t table, std::string_view name,
                                            bool* usable) const;

  std::unique_ptr<MemorySource> bytes_;
  uint16_t machine_ = 0;
  std::vector<Load> loads_;
  std::vector<Section> sections_;
  std::optional<uint64_t> tls_size_;
  std::optional<uint64_t> tls_align_;
};

uint32_t TlsDescriptorType(uint16_t machine);
const char* MachineName(uint16_t machine);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_ELF_FILE_H_
