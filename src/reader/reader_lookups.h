// The project's knowledge of the readers that take a Node.js process's labels
// from outside: how each one's own code finds them, every fact cited with
// the repository, commit, file and line it comes from. `check --readers`,
// inspect's "readers" and `--as NAME` apply these lookups to a live process
// (parca_lookup.h, reader_sights.h), so what they report is what that
// reader's code would find there, not what customlabels publishes. What each
// reader keeps of a set (labels, key and value bytes) is next door, in
// reader_profiles.cc.
#ifndef CUSTOMLABELS_READER_READER_LOOKUPS_H_
#define CUSTOMLABELS_READER_READER_LOOKUPS_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace customlabels::reader {

// One cited fact: "repository@commit path:lines" and what is there.
struct SourceRef {
  const char* where;
  const char* fact;
};

enum class KnownReaderId {
  kAbiV1,       // any reader of the Custom Label ABI v1 (gdb, bpftrace scripts)
  kParca,       // the Parca agent, through its fork of the OpenTelemetry eBPF profiler
  kOtelTls,     // OTEP 4947 thread-context readers (tlsdesc_v1_dev)
  kOtelNodejs,  // the OpenTelemetry eBPF profiler's design doc "Node.js Thread Context"
};

struct KnownReader {
  KnownReaderId id;
  const char* name;     // --as NAME, the key in inspect's "readers"
  const char* display;  // in text
  const char* follows;  // what it reads, in words
  std::vector<SourceRef> sources;
};

// Every known reader, in the order check --readers lists them.
const std::vector<KnownReader>& KnownReaders();
const KnownReader* FindKnownReader(std::string_view name);
const KnownReader& KnownReaderOf(KnownReaderId id);

// The Parca agent's Node.js lookup (its Node walk and the loaders that set
// it up), as data. Every number is the fork's, cited in KnownReaders().
struct ParcaMajorOffsets {
  uint32_t from_major, to_major;  // inclusive; to_major UINT32_MAX: and later
  uint32_t cped_offset;           // isolate + this: the CPED slot
  uint32_t wrapped_object_offset;  // wrapper - 1 + this: its pointer P
};

struct ParcaLookup {
  const char* fork;  // "parca-dev/opentelemetry-ebpf-profiler@9ece4f9"
  // interpreter/customlabels: the addon, by file name.
  const char* addon_pattern;  // Go regexp, unanchored (MatchString)
  const char* native_library_pattern;
  // interpreter/nodev8: the Node.js executable (or libnode), by file name.
  const char* node_pattern;
  const char* version_symbol;  // three uint32: major, minor, patch
  uint64_t version_symbol_min_size;
  const char* isolate_symbol;  // V8's thread-local Isolate*
  // Below this major the isolate symbol is looked up in .dynsym alone (its
  // GNU hash); from it on .symtab is scanned too.
  uint32_t isolate_in_symtab_from_major;
  std::vector<ParcaMajorOffsets> offsets;  // majors without an entry: unsupported
  // The walk, from the tagged frame read at isolate + cped_offset.
  uint64_t frame_table_at;    // frame + 0x17 (untag, then the table at 0x18)
  uint64_t table_buckets_at;  // table - 1 + 0x10 + 2 * 8: the bucket count
  int max_tries;              // entries tried (MAX_V8_HM_TRIES)
  uint64_t dtv_block_at;      // *(*(tp) + 16): the main executable's TLS block
  uint64_t set_at, token_at;  // P + 24: the set; P + 32: the token
  uint64_t token;
};
const ParcaLookup& ParcaFork();
// The offsets the fork uses for `major`, or nullptr if it supports none.
const ParcaMajorOffsets* ParcaOffsetsFor(uint32_t major);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_READER_LOOKUPS_H_
