#include "writers.h"

#include <cstdio>
#include <set>

#include "abi_names.h"
#include "elf_file.h"
#include "format.h"
#include "process_context.h"

namespace customlabels::reader {

namespace {

constexpr const char* kAbiSymbol = "custom_labels_abi_version";
constexpr const char* kTlsSymbol = "otel_thread_ctx_v1";
constexpr const char* kNodejsSymbol = "otel_thread_ctx_nodejs_v1";

std::string RangeOf(const Mapping& m) {
  char range[64];
  std::snprintf(range, sizeof(range), "%llx-%llx", static_cast<unsigned long long>(m.start),
                static_cast<unsigned long long>(m.end));
  return range;
}

std::vector<std::string> SymbolsOf(const ModuleWriter& w) {
  std::vector<std::string> out;
  if (w.abi_v1) out.emplace_back(kAbiSymbol);
  if (w.tls_v1) out.emplace_back(kTlsSymbol);
  if (w.nodejs_v1) out.emplace_back(kNodejsSymbol);
  return out;
}

std::string Join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

// The modules exporting a symbol (`has`), as a list of paths.
template <typename Has>
std::vector<std::string> Exporters(const ProcessWriters& w, Has has) {
  std::vector<std::string> out;
  for (const ModuleWriter& m : w.modules) {
    if (has(m)) out.push_back(m.path);
  }
  return out;
}

// One reader's verdict where it keeps one of `exporters` (its symbol's) per
// process.
void Ambiguous(ReaderVerdict* v, const std::string& symbol, const std::vector<std::string>& exporters) {
  if (v->answer == ReaderVerdict::Answer::kSees) v->answer = ReaderVerdict::Answer::kPartly;
  v->brief = "maybe: " + std::to_string(exporters.size()) + " modules export " + symbol;
  v->text = std::to_string(exporters.size()) + " modules export " + symbol + " (" + Join(exporters, ", ") +
            "), and the reader keeps one per process: the one it attached last (a map keyed by "
            "pid, opentelemetry-ebpf-profiler PR #1229's interpreter/threadcontext). Where that is "
            "not customlabels.node it reads the other module's context, not customlabels' labels. " +
            v->text;
  v->todo = "load one writer of " + symbol + " in the process (without the other module's thread context feature)" +
            (v->todo.empty() ? "" : "; " + v->todo);
}

// Every other exporter of otel_thread_ctx_nodejs_v1 was read, and carries
// customlabels' discovery on every thread that published one.
bool Mirrored(const ProcessWriters& writers) {
  bool any = false;
  for (const ModuleWriter& m : writers.modules) {
    if (!m.nodejs_v1 || m.customlabels) continue;
    if (!m.nodejs_tls || m.published == 0 || m.mirrored != m.published || m.own != 0) return false;
    any = true;
  }
  return any;
}

}  // namespace

ProcessWriters FindWriters(pid_t pid, const std::vector<Mapping>& maps) {
  ProcessWriters out;
  std::set<std::string> seen;
  for (const Mapping& m : maps) {
    if (IsProcessContextName(m) && (m.perms.size() < 3 || m.perms[2] != 'x')) {
      out.contexts.push_back(m.path + " at " + Hex(m.start));
      continue;
    }
    if (m.path.empty() || m.path[0] != '/' || m.offset != 0 || !seen.insert(m.path).second) continue;
    if (m.path.rfind("/dev/", 0) == 0 || m.path.rfind("/memfd:", 0) == 0) continue;
    std::string error;
    std::optional<ElfFile> elf = ElfFile::Open("/proc/" + std::to_string(pid) + "/map_files/" + RangeOf(m), &error);
    if (!elf && !m.deleted) elf = ElfFile::Open(m.path, &error);
    if (!elf) {
      // (Data files mapped whole, fonts, locales: not ELF, not a writer.)
      if (error.find("is not an ELF file") == std::string::npos) out.unreadable.push_back(m.path + " (" + error + ")");
      continue;
    }
    ModuleWriter w;
    w.path = m.deleted ? m.path + " (deleted)" : m.path;
    w.customlabels = IsAddonFileName(m.path);
    w.abi_v1 = elf->FindDynamicSymbol(kAbiSymbol).has_value();
    w.tls_v1 = elf->FindDynamicSymbol(kTlsSymbol).has_value();
    w.nodejs_v1 = elf->FindDynamicSymbol(kNodejsSymbol).has_value();
    if (w.nodejs_v1 && !w.customlabels) {
      const std::optional<uint64_t> delta = elf->VaddrOfOffset(0);
      Failure failure;
      if (delta) w.nodejs_tls = LocateTlsVariable(*elf, m.start - *delta, ProcessMemory(pid), kNodejsSymbol, &failure);
      w.nodejs_error = delta ? failure.message : "its first mapping is not in any PT_LOAD";
    }
    if (w.abi_v1 || w.tls_v1 || w.nodejs_v1) out.modules.push_back(std::move(w));
  }
  return out;
}

std::vector<const TlsVariable*> OtherNodeCopies(const ProcessWriters& writers) {
  std::vector<const TlsVariable*> out;
  for (const ModuleWriter& m : writers.modules) {
    if (m.nodejs_tls) out.push_back(&*m.nodejs_tls);
  }
  return out;
}

void CountCopies(const std::vector<const ThreadRead*>& reads, ProcessWriters* writers) {
  size_t i = 0;  // the module's index among OtherNodeCopies'
  for (ModuleWriter& m : writers->modules) {
    if (!m.nodejs_tls) continue;
    for (const ThreadRead* r : reads) {
      if (i >= r->other_walks.size()) continue;
      const NodeDiscoveryWords& copy = r->other_walks[i].words;
      if (r->other_walks[i].found() && r->other_walks[i].record != 0) ++m.records;
      const NodeDiscoveryWords& ours = r->walk_words;
      // Counted on the threads where customlabels published its own.
      if (ours.cped_slot == 0) continue;
      ++m.published;
      if (copy.cped_slot == 0) {
        ++m.empty;
      } else if (copy.cped_slot == ours.cped_slot && copy.als_handle == ours.als_handle &&
                 copy.als_identity_hash == ours.als_identity_hash &&
                 copy.record_slot_offset == ours.record_slot_offset && copy.undefined_value == ours.undefined_value) {
        m.mirrored += 1;
      } else {
        m.own += 1;
      }
    }
    ++i;
  }
}

void AmendVerdicts(const ProcessWriters& writers, const ProcessMode& mode, std::vector<ReaderVerdict>* verdicts) {
  const bool hookfree = mode.hookfree();
  // The process context is another writer's: it says nodejs_v1_dev while
  // every labelled thread has hooks (customlabels, with hooks, says
  // tlsdesc_v1_dev), or its key map names none of the keys of the labelled
  // hook-free threads' sets (customlabels keys its records by its own).
  const bool hooked_under_nodejs = mode.schema == "nodejs_v1_dev" && mode.labelled > 0 && mode.labelled_hookfree == 0;
  const bool unkeyed = mode.schema == "nodejs_v1_dev" && mode.labelled_hookfree > 0 &&
                       mode.hookfree_unkeyed == mode.labelled_hookfree;
  const bool foreign = hooked_under_nodejs || unkeyed;
  const std::vector<std::string> tls = Exporters(writers, [](const ModuleWriter& m) { return m.tls_v1; });
  const std::vector<std::string> nodejs = Exporters(writers, [](const ModuleWriter& m) { return m.nodejs_v1; });
  for (ReaderVerdict& v : *verdicts) {
    const KnownReaderId id = v.reader->id;
    const bool otel = id == KnownReaderId::kOtelTls || id == KnownReaderId::kOtelNodejs;
    if (id == KnownReaderId::kOtelTls && tls.size() > 1) Ambiguous(&v, kTlsSymbol, tls);
    // With hooks on the process context says tlsdesc_v1_dev: the design
    // doc's readers follow otel_thread_ctx_v1 then, not the walk.
    if (id == KnownReaderId::kOtelNodejs && hookfree && nodejs.size() > 1) {
      if (Mirrored(writers)) {
        v.text = std::to_string(nodejs.size()) + " modules export " + kNodejsSymbol + " (" + Join(nodejs, ", ") +
                 ") and the reader keeps one per process, but on every thread where customlabels published "
                 "its node context the other modules' copies carry the same (customlabels writes it where "
                 "their module left them empty): whichever it keeps, it walks customlabels' AsyncLocalStorage. " +
                 v.text;
      } else {
        Ambiguous(&v, kNodejsSymbol, nodejs);
      }
    }
    if (otel && foreign) {
      v.answer = ReaderVerdict::Answer::kSeesNothing;
      v.brief = "no: the process context is another writer's (nodejs_v1_dev)";
      v.text = std::string(hooked_under_nodejs
                               ? "the process context says nodejs_v1_dev while every labelled thread runs with hooks, so it is "
                                 "another writer's: customlabels, with hooks, says tlsdesc_v1_dev"
                               : "the process context's key map names none of the labelled threads' label keys, so it is "
                                 "another writer's: customlabels names every key its records carry") +
               ", and publishes none where another writer published first (OTEP 4719 allows one). " +
               std::string(id == KnownReaderId::kOtelTls
                               ? "This reader takes tlsdesc_v1_dev only: customlabels' records go unread (their attributes have no keys in that context)."
                           : hooked_under_nodejs
                               ? "This reader walks from otel_thread_ctx_nodejs_v1 then, which customlabels, with hooks, does not publish: it reads the other writer's context."
                               : "This reader walks from otel_thread_ctx_nodejs_v1: through customlabels.node it finds customlabels' records, which carry trace ids but no attributes (customlabels has no keys in that context), and through the other module the other writer's records.");
      v.todo = std::string(unkeyed ? "run with hooks on (leave CUSTOMLABELS_HOOKS unset) and " : "") +
               "read customlabels' labels through custom_labels_current_set (the Parca agent, Custom Label ABI v1 readers): dd-trace (5.132, 6) publishes its process context whenever it starts (service discovery), and no setting of its turns that off";
      continue;
    }
    if (otel && writers.contexts.size() > 1) {
      if (v.answer == ReaderVerdict::Answer::kSees) v.answer = ReaderVerdict::Answer::kPartly;
      if (v.brief.rfind("maybe", 0) != 0) v.brief = "maybe: " + std::to_string(writers.contexts.size()) + " process contexts";
      v.text = std::to_string(writers.contexts.size()) + " process contexts (" + Join(writers.contexts, ", ") +
               "): OTEP 4719 allows one; the readers decode the last in /proc/PID/maps (processinfo.go "
               "keeps the last it reads), whose key map then names every thread's attributes, "
               "customlabels' or not. " +
               v.text;
      v.todo = "publish one process context (turn off the other writer's: DD_TRACE_OTEL_CTX_ENABLED for dd-trace)" +
               (v.todo.empty() ? "" : "; " + v.todo);
    }
  }
}

std::string TextWriters(const ProcessWriters& writers) {
  std::string out = "writers of the standard symbols in this process:\n";
  for (const ModuleWriter& m : writers.modules) {
    out += "  " + m.path + ": " + Join(SymbolsOf(m), ", ") + (m.customlabels ? " (customlabels)" : "") + "\n";
    if (m.nodejs_tls) {
      out += "    its " + std::string(kNodejsSymbol) + " on the " + std::to_string(m.published) +
             " thread(s) where customlabels published its own: customlabels' on " + std::to_string(m.mirrored) +
             ", its own on " + std::to_string(m.own) + ", empty on " + std::to_string(m.empty) +
             "; a walk from it finds a record on " + std::to_string(m.records) + " thread(s)\n";
    } else if (m.nodejs_v1 && !m.customlabels) {
      out += "    its " + std::string(kNodejsSymbol) + " cannot be reached: " + m.nodejs_error + "\n";
    }
  }
  out += "  process contexts (OTEL_CTX): " + (writers.contexts.empty() ? std::string("none") : Join(writers.contexts, ", ")) + "\n";
  const size_t nodejs = Exporters(writers, [](const ModuleWriter& m) { return m.nodejs_v1; }).size();
  const size_t tls = Exporters(writers, [](const ModuleWriter& m) { return m.tls_v1; }).size();
  if (nodejs > 1 || tls > 1 || writers.contexts.size() > 1) {
    out += "  more than one writer: a reader keeps one module per symbol and process (the one it attached last) and "
           "the last process context; see each reader below\n";
  }
  for (const std::string& p : writers.unreadable) out += "  (could not read " + p + ")\n";
  return out;
}

std::string JsonWriters(const ProcessWriters& writers) {
  std::string out = "{\"modules\":[";
  for (size_t i = 0; i < writers.modules.size(); ++i) {
    const ModuleWriter& m = writers.modules[i];
    out += std::string(i ? "," : "") + "{\"path\":" + JsonString(m.path) + ",\"customlabels\":" +
           (m.customlabels ? "true" : "false") + ",\"symbols\":" + JsonStrings(SymbolsOf(m), 0);
    if (m.nodejs_tls) {
      out += ",\"copies\":{\"published\":" + std::to_string(m.published) + ",\"mirrored\":" + std::to_string(m.mirrored) +
             ",\"own\":" + std::to_string(m.own) + ",\"empty\":" + std::to_string(m.empty) +
             ",\"records\":" + std::to_string(m.records) + "}";
    }
    out += "}";
  }
  return out + "],\"contexts\":" + JsonStrings(writers.contexts, 0) + "}";
}

}  // namespace customlabels::reader
