#include "reader_verdicts.h"

#include <cstdio>

#include "format.h"
#include "reader_sights.h"

namespace customlabels::reader {

namespace {

constexpr const char* kHooksOn =
    "run with hooks on (the default: leave CUSTOMLABELS_HOOKS unset), which keep "
    "custom_labels_current_set and otel_thread_ctx_v1 current; it reads the labels there";

// What a reader's lookup gives in one mode, as far as its steps decide it
// without a labelled thread.
struct ModeCheck {
  bool works = true;
  std::string via;    // what it reads the labels through, when it works
  std::string brief;  // when not: a table cell's reason
  std::string text;   // when not: the step that fails, in words
  std::string maintainers;  // what the reader would need ("" nothing)
};

ModeCheck Works(std::string via) {
  ModeCheck c;
  c.via = std::move(via);
  return c;
}

ModeCheck Fails(std::string brief, std::string text, std::string maintainers = "") {
  ModeCheck c;
  c.works = false;
  c.brief = std::move(brief);
  c.text = std::move(text);
  c.maintainers = std::move(maintainers);
  return c;
}

std::string ForkName() {
  const std::string fork = ParcaFork().fork;
  return "Parca (fork " + fork.substr(fork.find('@') + 1) + ")";
}

std::string MajorsOf(const ParcaMajorOffsets& o) {
  if (o.to_major == UINT32_MAX) return "Node >= " + std::to_string(o.from_major);
  if (o.to_major == o.from_major) return "Node " + std::to_string(o.from_major);
  return "Node " + std::to_string(o.from_major) + "-" + std::to_string(o.to_major);
}

// The Parca agent's Node walk, from its setup and the threads that publish
// the walk (where its CPED read lands against where the CPED is).
ModeCheck ParcaWalk(const ParcaSetup& p, const std::vector<ReadThreadOf>& threads) {
  const ParcaLookup& f = ParcaFork();
  const std::string fork = ForkName();
  const std::string node = p.version ? "Node " + p.version->text() : "this Node.js";
  if (!p.addon_matches) {
    return Fails("no: the addon's file name",
                 fork + " takes the addon only from a file matching " + f.addon_pattern);
  }
  if (!p.v8_loaded) {
    return Fails("no: its V8 loader", fork + "'s V8 loader takes no file of this process: " +
                                          p.v8_error);
  }
  if (!p.has_als_data) {
    return Fails("no: no custom_labels_als_handle",
                 fork + " walks only where the addon names custom_labels_als_handle in a "
                        "TLSDESC relocation; this one does not");
  }
  if (!p.node_error.empty()) {
    if (p.version && p.version->major < f.isolate_in_symtab_from_major &&
        p.isolate_table == ".symtab") {
      const std::string from = std::to_string(f.isolate_in_symtab_from_major);
      return Fails("no: g_current_isolate not in .dynsym",
                   fork + " looks up " + f.isolate_symbol + " in .dynsym only on Node < " + from +
                       "; " + node +
                       " has it only in .symtab, so its walk reads no isolate and stops at "
                       "\"failed to get v8 CPED address\"",
                   "look up " + std::string(f.isolate_symbol) + " in .symtab on Node " +
                       std::to_string(p.version->major) + " too, as it does from " + from + " on");
    }
    return Fails("no: its Node.js setup", fork + "'s Node.js setup failed on " + node + " (\"" +
                                              p.node_error + "\")");
  }
  bool verified = false;
  for (const ReadThreadOf& t : threads) {
    const ThreadRead& r = *t.read;
    if (!r.parca || r.walk_words.cped_slot == 0 || r.parca->isolate_here == 0) continue;
    const int64_t here = static_cast<int64_t>(r.walk_words.cped_slot - r.parca->isolate_here);
    if (here == static_cast<int64_t>(p.cped_offset)) {
      verified = true;
      continue;
    }
    const ParcaMajorOffsets* o = ParcaOffsetsFor(p.version ? p.version->major : 0);
    return Fails("no: CPED at +" + std::to_string(here) + ", it reads +" +
                     std::to_string(p.cped_offset),
                 fork + " reads the CPED at isolate+" + std::to_string(p.cped_offset) + " on " +
                     (o ? MajorsOf(*o) : node) + "; " + node + " keeps it at +" +
                     std::to_string(here),
                 "cpedOffset " + std::to_string(here) + " for " + node);
  }
  if (!verified) {
    return Fails("cannot tell: no thread publishes the walk",
                 "no thread publishes where the CPED is (otel_thread_ctx_nodejs_v1), so where " +
                     fork + " reads it cannot be checked");
  }
  return Works("its Node walk");
}

ModeCheck OnCheck(KnownReaderId id, const AbiTarget& t, const ParcaSetup& p,
                  const ProcessContext* context, const std::vector<ReadThreadOf>& threads) {
  switch (id) {
    case KnownReaderId::kAbiV1:
      if (!t.current_set.static_tls) {
        return Fails("no: dynamic TLS",
                     "custom_labels_current_set is in dynamic TLS, where readers that assume "
                     "static TLS see nothing");
      }
      return Works(kCurrentSetSymbol);
    case KnownReaderId::kParca: {
      if (!p.addon_matches) return ParcaWalk(p, threads);
      if (!t.current_set.static_tls) {
        return Fails("no: dynamic TLS",
                     "custom_labels_current_set is in dynamic TLS, and it assumes static TLS");
      }
      // Its walk, where it works, replaces what the current set gave.
      return Works(ParcaWalk(p, threads).works ? "its Node walk" : kCurrentSetSymbol);
    }
    case KnownReaderId::kOtelTls:
    case KnownReaderId::kOtelNodejs:
      if (!t.otel) return Fails("no: no otel_thread_ctx_v1", "the addon exports no reachable otel_thread_ctx_v1");
      if (context == nullptr || !context->ok()) {
        return Fails("no: no process context", WhyNoSchema(context) +
                                                   " (CUSTOMLABELS_THREAD_CONTEXT=0, or another "
                                                   "library owns it): no thread context to read");
      }
      return Works(kOtelSymbol);
  }
  return Works("");
}

ModeCheck OffCheck(KnownReaderId id, const AbiTarget& t, const ParcaSetup& p,
                   const ProcessContext* context, const std::vector<ReadThreadOf>& threads) {
  switch (id) {
    case KnownReaderId::kAbiV1:
      return Fails("no: NULL without hooks",
                   "custom_labels_current_set stays NULL on threads without hooks");
    case KnownReaderId::kParca:
      return ParcaWalk(p, threads);
    case KnownReaderId::kOtelTls:
      return Fails("no: schema nodejs_v1_dev",
                   "without hooks the process context says nodejs_v1_dev, which it refuses "
                   "(it reads only tlsdesc_v1_dev), and otel_thread_ctx_v1 stays NULL");
    case KnownReaderId::kOtelNodejs:
      if (!t.node) {
        return Fails("no: no otel_thread_ctx_nodejs_v1",
                     "the addon exports no reachable otel_thread_ctx_nodejs_v1");
      }
      if (context == nullptr || !context->ok()) {
        return Fails("no: no process context", WhyNoSchema(context) +
                                                   ": it selects its walk by the schema there");
      }
      return Works("its walk from otel_thread_ctx_nodejs_v1");
  }
  return Works("");
}

}  // namespace

bool ProcessMode::hookfree() const {
  return labelled_hookfree > 0 || (labelled == 0 && schema == ProcessContext::kNodeSchemaVersion);
}

bool ProcessMode::hooked() const {
  return labelled > labelled_hookfree || (labelled == 0 && schema == ProcessContext::kSchemaVersion);
}

std::string ProcessMode::text() const {
  const std::string where = (schema.empty() ? "no process context schema" : "schema " + schema) +
                            "; " +
                            (labelled == 0 ? std::string("no thread runs labelled work right now")
                                           : std::to_string(labelled) +
                                                 " thread(s) labelled right now, " +
                                                 std::to_string(labelled_hookfree) +
                                                 " of them without hooks");
  const std::string what = hookfree() && hooked() ? "hooks on and off"
                           : hookfree()           ? "hooks off"
                           : hooked()             ? "hooks on"
                                                  : "mode unknown";
  return what + " (" + where + ")";
}

ProcessMode ModeOf(const std::vector<ReadThreadOf>& threads, const ProcessContext* context) {
  ProcessMode m;
  m.schema = SchemaOf(context);
  for (const ReadThreadOf& t : threads) {
    if (!t.read->set.ok() || t.read->set.address == 0) continue;
    ++m.labelled;
    if (t.read->via != "node-walk") continue;
    ++m.labelled_hookfree;
    bool labels = false, keyed = false;
    for (const Slot& slot : t.read->set.slots) {
      if (slot.ignored()) continue;
      labels = true;
      if (context == nullptr || !context->key_map) continue;
      for (const std::optional<std::string>& key : *context->key_map) keyed = keyed || (key && *key == slot.key);
    }
    if (labels && !keyed) ++m.hookfree_unkeyed;
  }
  return m;
}

const char* AnswerName(ReaderVerdict::Answer answer) {
  switch (answer) {
    case ReaderVerdict::Answer::kSees:
      return "sees";
    case ReaderVerdict::Answer::kSeesNothing:
      return "no";
    case ReaderVerdict::Answer::kPartly:
      return "partly";
    case ReaderVerdict::Answer::kWrong:
      return "wrong";
    case ReaderVerdict::Answer::kCannotTell:
      break;
  }
  return "unknown";
}

std::vector<ReaderVerdict> Verdicts(const AbiTarget& target, const ParcaSetup& parca,
                                    const ProcessContext* context,
                                    const std::vector<ReadThreadOf>& threads) {
  using Answer = ReaderVerdict::Answer;
  const ProcessMode mode = ModeOf(threads, context);
  std::vector<std::vector<ReaderSight>> sights;
  for (const ReadThreadOf& t : threads) sights.push_back(ThreadSights(*t.read, context));
  std::vector<ReaderVerdict> out;
  for (const KnownReader& reader : KnownReaders()) {
    ReaderVerdict v;
    v.reader = &reader;
    const ModeCheck on = OnCheck(reader.id, target, parca, context, threads);
    const ModeCheck off = OffCheck(reader.id, target, parca, context, threads);
    const bool record_reader =
        reader.id == KnownReaderId::kOtelTls || reader.id == KnownReaderId::kOtelNodejs;
    // What it saw of the labelled threads, against what they hold: the
    // same set (label set readers) or the same record.
    size_t same = 0, none = 0, other = 0;
    bool none_hookfree = false;
    std::string vias, first_why;
    for (size_t i = 0; i < threads.size(); ++i) {
      const ThreadRead& r = *threads[i].read;
      if (!r.set.ok() || r.set.address == 0) continue;
      const uint64_t truth = !record_reader ? r.set.address
                             : r.otel && r.otel->has_context() ? r.otel->address
                             : r.walk_record                  ? r.walk_record->address
                                                               : 0;
      if (truth == 0) continue;  // no record to see (records are off)
      const ReaderSight& s = SightOf(sights[i], reader.id);
      if (!s.sees) {
        ++none;
        none_hookfree = none_hookfree || r.via == "node-walk";
        if (first_why.empty()) first_why = "thread " + std::to_string(threads[i].tid) + ": " + s.why;
      } else if (s.address == truth) {
        ++same;
        if (vias.find(s.via) == std::string::npos) vias += (vias.empty() ? "" : ", ") + s.via;
      } else {
        ++other;
      }
    }
    const size_t seen = same + none + other;
    const ModeCheck* failing = nullptr;  // the mode check that explains a miss
    if (seen > 0) {
      v.answer = other > 0   ? Answer::kWrong
                 : none == 0 ? Answer::kSees
                 : same == 0 ? Answer::kSeesNothing
                             : Answer::kPartly;
      v.text = "sees the labels of " + std::to_string(same) + " of " + std::to_string(seen) +
               " labelled thread(s)" + (vias.empty() ? "" : ", through " + vias);
      if (other > 0) {
        v.text += "; another set or record than the thread's on " + std::to_string(other);
      }
      const ModeCheck& explains = none_hookfree ? off : on;
      if (none > 0) {
        v.text += ": " + (explains.works ? first_why : explains.text);
        if (!explains.works) failing = &explains;
      }
      v.brief = v.answer == Answer::kSees ? "yes (" + vias + ")"
                : !explains.works         ? explains.brief
                                          : std::string(AnswerName(v.answer));
    } else if (mode.hookfree() && mode.hooked()) {
      v.answer = on.works && off.works     ? Answer::kSees
                 : on.works || off.works   ? Answer::kPartly
                                           : Answer::kSeesNothing;
      v.text = "threads with hooks: " + (on.works ? "through " + on.via : on.text) +
               "; threads without: " + (off.works ? "through " + off.via : off.text);
      v.brief = std::string(AnswerName(v.answer));
      if (!off.works) failing = &off;
    } else if (mode.hookfree() || mode.hooked()) {
      const ModeCheck& c = mode.hookfree() ? off : on;
      v.answer = c.works ? Answer::kSees : Answer::kSeesNothing;
      v.text = c.works ? "no thread is labelled right now; its lookup reaches the labels through " +
                             c.via
                       : c.text;
      v.brief = c.works ? "yes (" + c.via + ")" : c.brief;
      if (!c.works) failing = &c;
    } else {
      // Nothing says the mode: the answer only if both modes give it.
      v.answer = on.works && off.works     ? Answer::kSees
                 : !on.works && !off.works ? Answer::kSeesNothing
                                           : Answer::kCannotTell;
      v.text = "no thread runs labelled work and no process context says the mode: with hooks " +
               (on.works ? "through " + on.via : on.text) +
               "; without: " + (off.works ? "through " + off.via : off.text);
      v.brief = v.answer == Answer::kCannotTell ? "cannot tell" : AnswerName(v.answer);
      if (!off.works && on.works) failing = &off;
    }
    // A mode check that cannot decide (no thread publishes the walk) decides nothing.
    if (failing != nullptr && failing->brief.rfind("cannot tell", 0) == 0) {
      v.answer = Answer::kCannotTell;
    }
    if (v.answer != Answer::kSees) {
      if (failing == &off && on.works) v.todo = std::string(kHooksOn) + ".";
      if (failing != nullptr && !failing->maintainers.empty()) {
        v.todo += (v.todo.empty() ? "" : " ") + std::string("The reader would need: ") +
                  failing->maintainers + ".";
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::string TextVerdicts(const ParcaSetup& parca, const ProcessMode& mode,
                         const std::vector<ReaderVerdict>& verdicts) {
  std::string out = "\nreaders: who sees these labels (" +
                    (parca.version ? "Node.js " + parca.version->text()
                                   : std::string("Node.js of unknown version")) +
                    ", " + mode.text() + ")\n";
  const std::string indent(11, ' ');
  for (const ReaderVerdict& v : verdicts) {
    char head[16];
    std::snprintf(head, sizeof(head), "  %-8s ", AnswerName(v.answer));
    out += head + std::string(v.reader->display) + ": " + TextString(v.text) + "\n";
    if (!v.todo.empty()) out += indent + "what to do: " + TextString(v.todo) + "\n";
  }
  return out;
}

std::string JsonVerdicts(const ParcaSetup& parca, const ProcessMode& mode,
                         const std::vector<ReaderVerdict>& verdicts) {
  std::string out = "{\"node\":" + (parca.version ? JsonString(parca.version->text()) : "null") +
                    ",\"mode\":{\"labelled\":" + std::to_string(mode.labelled) +
                    ",\"hookfree\":" + std::to_string(mode.labelled_hookfree) +
                    ",\"schema\":" + JsonString(mode.schema) + ",\"text\":" + JsonString(mode.text()) +
                    "},\"readers\":[";
  for (size_t i = 0; i < verdicts.size(); ++i) {
    const ReaderVerdict& v = verdicts[i];
    out += (i ? ",{" : "{") + std::string("\"name\":") + JsonString(v.reader->name) +
           ",\"display\":" + JsonString(v.reader->display) +
           ",\"answer\":" + JsonString(AnswerName(v.answer)) + ",\"brief\":" + JsonString(v.brief) +
           ",\"text\":" + JsonString(v.text) + ",\"todo\":" + JsonString(v.todo) + "}";
  }
  return out + "]}\n";
}

}  // namespace customlabels::reader
