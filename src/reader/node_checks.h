// What `check` verifies of the hook-free Node.js walk (node_walk.h): the
// discovery struct in an addon file, the layout the process context states
// against the live walk, and which threads open the gate. Pure but for the
// thread reads `CheckNodeThreads` is handed.
#ifndef CUSTOMLABELS_READER_NODE_CHECKS_H_
#define CUSTOMLABELS_READER_NODE_CHECKS_H_

#include <string>
#include <vector>

#include "elf_checks.h"
#include "elf_file.h"
#include "node_walk.h"
#include "process_context.h"

namespace customlabels::reader {

// Nothing when the file does not export otel_thread_ctx_nodejs_v1;
// otherwise: a global default-visibility TLS symbol of 32 bytes, a TLSDESC
// relocation naming it, and the Parca agent's pair (custom_labels_als_handle,
// 8 bytes; custom_labels_als_identity_hash, 4), TLS as well.
std::vector<CheckLine> CheckNodeElf(const ElfFile& elf);

// One thread's walk, as read.
struct NodeThreadWalk {
  pid_t tid = 0;
  NodeWalk walk;
};

// The walks of the process's threads: every open gate walks without a
// malformed or unreadable word; with schema nodejs_v1_dev the process
// context's layout constants are V8's as Node.js builds it (tagged 8, map
// table 24, table header 16) and js_object_record_offset is each open
// thread's record_slot_offset; threads that never published read zero.
std::vector<CheckLine> CheckNodeThreads(const std::vector<NodeThreadWalk>& threads,
                                        const ProcessContext* context);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_NODE_CHECKS_H_
