#include "elf_checks.h"

#include <elf.h>

#include <optional>

#include "abi_reader.h"

namespace customlabels::reader {

std::vector<CheckLine> CheckElf(const ElfFile& elf, const std::string& name) {
  std::vector<CheckLine> out;
  auto line = [&out](bool pass, std::string text) { out.push_back({pass, std::move(text)}); };
  line(IsAddonFileName(name),
       "file name matches " + std::string(kAddonNamePattern) + " (" + name + ")");
  line(elf.machine() == EM_X86_64 || elf.machine() == EM_AARCH64,
       std::string("machine is x86-64 or aarch64 (") + MachineName(elf.machine()) + ")");
  const std::optional<ElfSymbol> v = elf.FindDynamicSymbol("custom_labels_abi_version");
  uint32_t value = 0;
  const bool readable = v && elf.ReadVaddr(v->value, &value, sizeof(value));
  line(v && v->type == STT_OBJECT && v->size == 4 && v->bind == STB_GLOBAL &&
           v->visibility == STV_DEFAULT,
       ".dynsym has custom_labels_abi_version: global default-visibility OBJECT of 4 bytes" +
           std::string(!v ? " (missing: hidden or not defined?)"
                          : " (size " + std::to_string(v->size) + ")"));
  line(readable && value == 1,
       "custom_labels_abi_version is 1 in the file" +
           (readable ? " (" + std::to_string(value) + ")" : std::string(" (unreadable)")));
  const std::optional<ElfSymbol> s = elf.FindDynamicSymbol("custom_labels_current_set");
  line(s && s->type == STT_TLS && s->size == 8 && s->bind == STB_GLOBAL &&
           s->visibility == STV_DEFAULT,
       ".dynsym has custom_labels_current_set: global default-visibility TLS symbol of 8 bytes" +
           std::string(!s ? " (missing: hidden by -fvisibility=hidden?)" : ""));
  line(elf.FindTlsDescriptor("custom_labels_current_set").has_value(),
       std::string("an R_") + (elf.machine() == EM_AARCH64 ? "AARCH64" : "X86_64") +
           "_TLSDESC relocation names custom_labels_current_set (build with -mtls-dialect=" +
           (elf.machine() == EM_AARCH64 ? "desc" : "gnu2") + ")");
  const uint64_t tls = elf.tls_size().value_or(0);
  line(tls > 0 && tls <= 64, "PT_TLS is " + std::to_string(tls) +
                                 " bytes (keep thread-local storage to a few pointers so "
                                 "glibc's 512-byte surplus gives static TLS)");
  return out;
}

}  // namespace customlabels::reader
