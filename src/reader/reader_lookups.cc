#include "reader_lookups.h"

#include <cstdint>

namespace customlabels::reader {

namespace {

// The Parca agent's fork, at the commit this knowledge was read from.
#define PARCA "parca-dev/opentelemetry-ebpf-profiler@9ece4f9e38358962fb540b43714c5c3bf24713b5 "
// The design doc, PR #1861 of the OpenTelemetry eBPF profiler (open).
#define DESIGN_DOC                                                           \
  "open-telemetry/opentelemetry-ebpf-profiler@0513b7cf (PR #1861) "         \
  "design-docs/01861-nodejs-thread-context/README.md "

}  // namespace

const std::vector<KnownReader>& KnownReaders() {
  static const std::vector<KnownReader> kReaders = {
      {KnownReaderId::kAbiV1, "abi-v1", "Custom Label ABI v1 readers (gdb, bpftrace scripts)",
       "custom_labels_current_set, through its TLSDESC relocation, at thread pointer + the "
       "descriptor's argument (static TLS)",
       {
           {"Custom Label ABI v1 (custom-labels-v1.md), \"custom_labels_current_set\"",
            "a dynamic TLS symbol reached through an R_X86_64_TLSDESC / R_AARCH64_TLSDESC "
            "relocation; NULL: no labels"},
       }},
      {KnownReaderId::kParca, "parca", "Parca agent (fork 9ece4f9)",
       "custom_labels_current_set first; then its own Node walk (isolate from V8's "
       "g_current_isolate, the CPED at a per-major offset, the frame's bucket of "
       "custom_labels_als_identity_hash, the wrapper's pointer P, token at P+32), whose set "
       "replaces the first when it finds one",
       {
           {PARCA "support/ebpf/interpreter_dispatcher.ebpf.c:267-269",
            "maybe_add_native_custom_labels, then maybe_add_node_custom_labels, which overwrites "
            "the labels only when its walk reaches a label set"},
           {PARCA "interpreter/customlabels/customlabels.go:24-25",
            "the addon is a mapped file matching `.*/customlabels\\.node` (libraries: "
            "`.*/libcustomlabels.*\\.so`)"},
           {PARCA "interpreter/customlabels/customlabels.go:49-60,130",
            "custom_labels_abi_version through the GNU hash (.dynsym), 4 bytes, value 1"},
           {PARCA "interpreter/customlabels/customlabels.go:74-88,112,136-147",
            "TLSDESC relocations named custom_labels_current_set, custom_labels_als_identity_hash "
            "and custom_labels_als_handle; each TLS offset is the descriptor's second word; the "
            "walk runs only if the handle's relocation exists"},
           {PARCA "support/ebpf/native_custom_labels.h:27-58,154",
            "a thread's variable is at thread pointer + offset (aarch64 for the current set: "
            "*(*(tp) + 16) + offset)"},
           {PARCA "support/ebpf/native_custom_labels.h:91-140",
            "reads count, then the first 10 slots; a slot with a NULL key is skipped"},
           {PARCA "interpreter/nodev8/v8.go:223",
            "the Node.js file matches `^(?:.*/)?(?:node|nsolid)(\\d+)?$|^(?:.*/)libnode\\.so(\\.\\d+)?$`"},
           {PARCA "interpreter/nodev8/v8.go:2319-2320,2358-2381",
            "_ZZ21napi_get_node_versionE7version and _ZN2v88internal18g_current_isolate_E: the "
            "GNU hash first, .symtab scanned for whatever it lacks"},
           {PARCA "interpreter/nodev8/v8.go:2413-2432",
            "the major is the first uint32 of _ZZ21napi_get_node_versionE7version (at least 12 "
            "bytes)"},
           {PARCA "interpreter/nodev8/v8.go:2434-2448",
            "majors 22-23: CPED at isolate+576, wrapper field at +24; 24: +632, +32; 25 and "
            "later: +640, +32; before 22: unsupported"},
           {PARCA "interpreter/nodev8/v8.go:2450-2470",
            "majors below 26: g_current_isolate through LookupTLSSymbolOffset (the GNU hash, "
            ".dynsym only); 26 and later: the symbol as lookupRelevantSymbols found it, .symtab "
            "included"},
           {PARCA "libpf/pfelf/file.go:1108-1142",
            "a TLS symbol's offset: x86-64 st_value - roundup(PT_TLS memsz, align); aarch64 "
            "st_value"},
           {PARCA "interpreter/nodev8/v8.go:2545-2547",
            "a failed lookup is only logged (\"Failed to load extra data for Node.js custom labels "
            "handling\"): the walk then runs with isolate offset 0"},
           {PARCA "support/ebpf/native_custom_labels.h:61-87",
            "isolate = *(*(*(tp) + 16) + isolate offset); CPED = *(isolate + cped offset); 0 "
            "stops the walk (\"failed to get v8 CPED address\")"},
           {PARCA "support/ebpf/native_custom_labels.h:324-352",
            "table = *(frame + 0x17); bucket count = *(table - 1 + 0x20), a Smi and a power of two"},
           {PARCA "support/ebpf/native_custom_labels.h:357-381",
            "custom_labels_als_identity_hash and custom_labels_als_handle at thread pointer + "
            "their offsets; the key is *handle; bucket = hash & (count - 1)"},
           {PARCA "support/ebpf/native_custom_labels.h:197,385-434",
            "at most MAX_V8_HM_TRIES = 16 entries: an index that is not a Smi fails, a negative "
            "one ends the chain; entries are {key, value, next} after the buckets"},
           {PARCA "support/ebpf/native_custom_labels.h:436-470",
            "P = *(value - 1 + wrapper offset); token 0xEC9EB507FB5D7903 at P+32 (else \"not a "
            "labelset\", no labels); the set at *(P+24)"},
       }},
      {KnownReaderId::kOtelTls, "otel-tls",
       "OTEP 4947 thread-context readers (tlsdesc_v1_dev)",
       "the process context's threadlocal.schema_version tlsdesc_v1_dev, then "
       "otel_thread_ctx_v1 through its TLSDESC relocation to the thread's record",
       {
           {"open-telemetry/opentelemetry-specification oteps/profiles/4947-thread-ctx.md",
            "otel_thread_ctx_v1: a TLS pointer to the thread's context record; the process "
            "context names the schema and the attribute keys"},
           {"open-telemetry/opentelemetry-ebpf-profiler PR #1229 process/processcontext.go",
            "supportedThreadCtxSchemaVersion = \"tlsdesc_v1_dev\": any other schema is refused "
            "(\"unsupported thread context schema version\")"},
       }},
      {KnownReaderId::kOtelNodejs, "otel-nodejs",
       "OpenTelemetry eBPF profiler, Node.js design doc (PR #1861)",
       "by schema: nodejs_v1_dev walks from otel_thread_ctx_nodejs_v1 (cped_slot, als_handle, "
       "als_identity_hash, undefined) through the frame to the wrapper's record; "
       "tlsdesc_v1_dev reads otel_thread_ctx_v1 as OTEP 4947 does",
       {
           {DESIGN_DOC "\"Process context attributes\"",
            "threadlocal.schema_version nodejs_v1_dev selects the walk; js_object_record_offset, "
            "tagged_size, js_map_table_offset, ordered_hash_map_header_size give the layout"},
           {DESIGN_DOC "\"Thread-local variable\"",
            "otel_thread_ctx_nodejs_v1: 32 bytes, cped_slot (the gate, 0: do not read), "
            "als_handle, als_identity_hash, undefined_addr"},
           {DESIGN_DOC "\"2. Thread sampling\"",
            "the walk: gate, *cped_slot == undefined: none, the frame's table, the bucket of the "
            "hash, the entry keyed *als_handle, undefined: detached, the record at the wrapper's "
            "record offset, valid == 1"},
           {DESIGN_DOC "\"Interaction with existing functionality\"",
            "a profiler that supports both schemas selects its walk on schema_version"},
       }},
  };
  return kReaders;
}

const KnownReader* FindKnownReader(std::string_view name) {
  for (const KnownReader& r : KnownReaders()) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

const KnownReader& KnownReaderOf(KnownReaderId id) {
  for (const KnownReader& r : KnownReaders()) {
    if (r.id == id) return r;
  }
  return KnownReaders().front();  // every id has an entry
}

const ParcaLookup& ParcaFork() {
  static const ParcaLookup kParca = {
      "parca-dev/opentelemetry-ebpf-profiler@9ece4f9",
      R"(.*/customlabels\.node)",
      R"(.*/libcustomlabels.*\.so)",
      R"(^(?:.*/)?(?:node|nsolid)(\d+)?$|^(?:.*/)libnode\.so(\.\d+)?$)",
      "_ZZ21napi_get_node_versionE7version",
      12,
      "_ZN2v88internal18g_current_isolate_E",
      26,
      {
          {22, 23, 576, 24},
          {24, 24, 632, 32},
          {25, UINT32_MAX, 640, 32},
      },
      0x17,
      0x10 + 2 * 8 - 1,
      16,
      16,
      24,
      32,
      0xEC9EB507FB5D7903ULL,
  };
  return kParca;
}

const ParcaMajorOffsets* ParcaOffsetsFor(uint32_t major) {
  for (const ParcaMajorOffsets& o : ParcaFork().offsets) {
    if (major >= o.from_major && major <= o.to_major) return &o;
  }
  return nullptr;
}

}  // namespace customlabels::reader
