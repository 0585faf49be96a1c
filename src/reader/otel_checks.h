// What `check` verifies of the OpenTelemetry contexts: otel_thread_ctx_v1
// in an addon file (OTEP 4947) and a process's context (OTEP 4719). Pure.
#ifndef CUSTOMLABELS_READER_OTEL_CHECKS_H_
#define CUSTOMLABELS_READER_OTEL_CHECKS_H_

#include <vector>

#include "elf_checks.h"
#include "elf_file.h"
#include "process_context.h"

namespace customlabels::reader {

// One info line when the file does not export otel_thread_ctx_v1 (an
// addon from before the thread context); otherwise: a global
// default-visibility TLS symbol of 8 bytes in .dynsym, and a TLSDESC
// relocation that names it.
std::vector<CheckLine> CheckOtelElf(const ElfFile& elf);

// The context as read: its mapping, header (signature, version 2, payload
// size), the payload decoding, threadlocal.schema_version ("tlsdesc_v1_dev")
// and threadlocal.attribute_key_map (strings, non-empty, distinct, at most
// 256).
std::vector<CheckLine> CheckProcessContext(const ProcessContext& context);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_OTEL_CHECKS_H_
