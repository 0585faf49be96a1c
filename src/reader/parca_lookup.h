// The Parca agent's lookup applied to a live process, as its fork's code does
// it (reader_lookups.h ParcaFork(), every step cited there): what its loaders
// find in the mapped files (SetUpParca: the addon's relocations, the Node.js
// major, its per-major offsets, the isolate symbol where it looks for it),
// then what its eBPF code reads from a stopped thread (ReadParcaThread: the
// current set, then its Node walk, whose set wins when it finds one). Every
// word comes from the target and is untrusted; the walk is bounded as the
// fork bounds it (16 entries).
#ifndef CUSTOMLABELS_READER_PARCA_LOOKUP_H_
#define CUSTOMLABELS_READER_PARCA_LOOKUP_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "elf_file.h"
#include "memory_source.h"

namespace customlabels::reader {

struct NodeVersion {
  uint32_t major = 0, minor = 0, patch = 0;
  std::string text() const;  // "24.21.0"
};

// What the fork's loaders set up for one process.
struct ParcaSetup {
  // interpreter/customlabels, on the addon.
  bool addon_matches = false;  // the file name matches its pattern
  uint64_t current_set_offset = 0;
  bool has_als_data = false;  // a relocation names custom_labels_als_handle
  uint64_t als_hash_offset = 0, als_handle_offset = 0;
  // interpreter/nodev8, on the Node.js executable (or libnode).
  std::string node_path;      // the mapped file it takes ("" if none matches)
  bool v8_loaded = false;     // its V8 loader accepts the file (V8 >= 8.1)
  std::string v8_error;       // why not
  std::optional<NodeVersion> version;
  uint32_t cped_offset = 0, wrapped_object_offset = 0;
  // The isolate symbol's TLS offset as its loader computes it: 0 when the
  // lookup failed (`node_error` says how), which the walk then runs with.
  int64_t isolate_offset = 0;
  std::string node_error;  // what loadNodeClData logged, "" if it succeeded
  // Where this file really has the isolate symbol (".dynsym", ".symtab" or
  // ""), and its offset: what to tell the fork's maintainers.
  std::string isolate_table;
  int64_t isolate_offset_here = 0;

  // Whether its eBPF code runs the Node walk for this process.
  bool walks() const { return addon_matches && v8_loaded && has_als_data; }
};

// Sets up from the files: `addon` is the mapped addon (its descriptors
// read from `memory` at `addon_base`), `node` the mapped file the V8 loader
// takes (nullptr when no mapping matches its pattern; `node_path` names it).
ParcaSetup SetUpParcaFrom(const std::string& addon_path, const ElfFile& addon, uint64_t addon_base,
                          const std::string& node_path, const ElfFile* node,
                          const MemorySource& memory);
// The same for a live process whose addon is loaded at `addon_base`: the
// mapped files as /proc/PID/maps names them.
ParcaSetup SetUpParca(pid_t pid, uint64_t addon_base, const MemorySource& memory);

// What its eBPF code reads from one stopped thread.
struct ParcaThread {
  uint64_t native_set = 0;  // custom_labels_current_set as it reads it
  bool native_read = false;
  // How its Node walk ended: "found", "not a label set" (the token differs:
  // no labels, not an error), "off: ..." (not run for this process) or the
  // step that failed, in the fork's words ("failed to get v8 CPED address").
  std::string walk;
  uint64_t isolate = 0;  // the isolate it read (0: none)
  // The isolate where this Node.js really keeps it (isolate_offset_here),
  // whatever the fork reads: to tell where the CPED really is.
  uint64_t isolate_here = 0;
  uint64_t cped = 0;     // the word at isolate + cped_offset
  uint64_t walk_set = 0;
  // What it records: the walk's set when the walk found one, else the
  // current set; `via` "custom_labels_current_set", "node walk" or "".
  uint64_t set = 0;
  std::string via;
};
ParcaThread ReadParcaThread(const ParcaSetup& setup, uint16_t machine, uint64_t thread_pointer,
                            const MemorySource& memory);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_PARCA_LOOKUP_H_
