// What `check` verifies in an addon file: pure over a parsed ElfFile, so the
// same code runs on files and on fuzzer input.
#ifndef CUSTOMLABELS_READER_ELF_CHECKS_H_
#define CUSTOMLABELS_READER_ELF_CHECKS_H_

#include <string>
#include <vector>

#include "elf_file.h"

namespace customlabels::reader {

struct CheckLine {
  bool pass = false;
  std::string text;
  bool info = false;  // neither passes nor fails: something worth knowing (pass is true)
};

// File name, machine, both ABI symbols with their sizes and value, the
// TLSDESC relocation and the PT_TLS size, one line each.
std::vector<CheckLine> CheckElf(const ElfFile& elf, const std::string& name);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_ELF_CHECKS_H_
