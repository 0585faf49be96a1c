// Reads what the Custom Label ABI needs from an ELF64 shared object on disk:
// .dynsym, the RELA sections named in the section headers, PT_TLS and the
// bytes at a virtual address. No Node.js, no process access.
#ifndef CUSTOMLABELS_READER_ELF_FILE_H_
#define CUSTOMLABELS_READER_ELF_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
  // Parses `path`; on failure returns nullopt and says why in `error`.
  static std::optional<ElfFile> Open(const std::string& path, std::string* error);

  uint16_t machine() const { return machine_; }
  const std::vector<ElfSymbol>& dynamic_symbols() const { return dynsym_; }
  const std::vector<ElfRelocation>& relocations() const { return relocations_; }
  // p_memsz of PT_TLS, if there is one.
  std::optional<uint64_t> tls_size() const { return tls_size_; }
  // p_vaddr - p_offset of the PT_LOAD that maps file offset `offset`.
  std::optional<uint64_t> VaddrOfOffset(uint64_t offset) const;

  const ElfSymbol* FindDynamicSymbol(const std::string& name) const;
  // The TLSDESC relocation (R_X86_64_TLSDESC / R_AARCH64_TLSDESC) naming `symbol`.
  const ElfRelocation* FindTlsDescriptor(const std::string& symbol) const;
  // Reads file bytes that back virtual address `vaddr` (initialized data).
  bool ReadVaddr(uint64_t vaddr, void* out, size_t size) const;

 private:
  struct Load {
    uint64_t vaddr, offset, filesz;
  };
  uint16_t machine_ = 0;
  std::vector<uint8_t> data_;
  std::vector<Load> loads_;
  std::vector<ElfSymbol> dynsym_;
  std::vector<ElfRelocation> relocations_;
  std::optional<uint64_t> tls_size_;
};

uint32_t TlsDescriptorType(uint16_t machine);
const char* MachineName(uint16_t machine);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_ELF_FILE_H_
