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
    if (w.abi_v1 || w.tls_v1 || w.nodejs_v1) out.modules.push_back(std::move(w));
  }
  return out;
}

void AmendVerdicts(const ProcessWriters& writers, const ProcessMode& mode, std::vector<ReaderVerdict>* verdicts) {
  const bool hookfree = mode.hookfree();
  const bool foreign = mode.schema == "nodejs_v1_dev" && mode.labelled > 0 && mode.labelled_hookfree == 0;
  const std::vector<std::string> tls = Exporters(writers, [](const ModuleWriter& m) { return m.tls_v1; });
  const std::vector<std::string> nodejs = Exporters(writers, [](const ModuleWriter& m) { return m.nodejs_v1; });
  for (ReaderVerdict& v : *verdicts) {
    const KnownReaderId id = v.reader->id;
    const bool otel = id == KnownReaderId::kOtelTls || id == KnownReaderId::kOtelNodejs;
    if (id == KnownReaderId::kOtelTls && tls.size() > 1) Ambiguous(&v, kTlsSymbol, tls);
    // With hooks on the process context says tlsdesc_v1_dev: the design
    // doc's readers follow otel_thread_ctx_v1 then, not the walk.
    if (id == KnownReaderId::kOtelNodejs && hookfree && nodejs.size() > 1) Ambiguous(&v, kNodejsSymbol, nodejs);
    if (otel && foreign) {
      v.answer = ReaderVerdict::Answer::kSeesNothing;
      v.brief = "no: the process context is another writer's (nodejs_v1_dev)";
      v.text = "the process context says nodejs_v1_dev while every labelled thread runs with hooks, so it is "
               "another writer's: customlabels, with hooks, says tlsdesc_v1_dev, and publishes none where "
               "another writer published first (OTEP 4719 allows one). " +
               std::string(id == KnownReaderId::kOtelTls
                               ? "This reader takes tlsdesc_v1_dev only: customlabels' records go unread (their attributes have no keys in that context)."
                               : "This reader walks from otel_thread_ctx_nodejs_v1 then, which customlabels, with hooks, does not publish: it reads the other writer's context.");
      v.todo = "read customlabels' labels through custom_labels_current_set (the Parca agent, Custom Label ABI v1 readers): dd-trace (5.132, 6) publishes its process context whenever it starts (service discovery), and no setting of its turns that off";
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
           (m.customlabels ? "true" : "false") + ",\"symbols\":" + JsonStrings(SymbolsOf(m), 0) + "}";
  }
  return out + "],\"contexts\":" + JsonStrings(writers.contexts, 0) + "}";
}

}  // namespace customlabels::reader
