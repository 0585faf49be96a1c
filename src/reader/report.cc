#include "report.h"

#include <cstdio>

#include "format.h"

namespace customlabels::reader {

namespace {

constexpr size_t kTextKeyBytes = 32;  // of a key quoted in a "!" line

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

// "  TID      NAME             " (the columns before the labels).
std::string Columns(const std::string& tid, const std::string& name) {
  return "  " + Pad(tid, 8) + " " + Pad(name, 16) + " ";
}

std::string QuotedKey(const std::string& key, bool cut) {
  std::string out = "\"" + TextString(key.substr(0, kTextKeyBytes));
  if (cut || key.size() > kTextKeyBytes) out += "...";
  return out + "\"";
}

std::string LimitSuffix(Limit limit, const char* otherwise) {
  return limit == kLimitNone ? std::string(otherwise) : std::string(" (") + LimitFlag(limit) + ")";
}

std::string JsonCuts(const std::vector<Truncation::Cut>& cuts) {
  std::string out = "[";
  for (size_t i = 0; i < cuts.size(); ++i) {
    const Truncation::Cut& c = cuts[i];
    out += (i ? ",{" : "{") + std::string("\"index\":") + std::to_string(c.index) +
           ",\"key\":" + JsonString(c.key) + ",\"length\":" + std::to_string(c.length) +
           ",\"kept\":" + std::to_string(c.kept);
    if (c.limit != kLimitNone) out += ",\"limit\":\"" + std::string(LimitFlag(c.limit)) + "\"";
    out += "}";
  }
  return out + "]";
}

}  // namespace

std::string TlsDescription(const AbiTarget& t) { return TlsDescription(t.current_set); }

std::string TlsDescription(const TlsVariable& t) {
  char buf[160];
  if (t.static_tls) {
    std::snprintf(buf, sizeof(buf), "static TLS, thread pointer %+lld",
                  static_cast<long long>(static_cast<int64_t>(t.argument)));
  } else {
    std::snprintf(buf, sizeof(buf), "dynamic TLS (module %llu, offset 0x%llx, via the DTV)",
                  static_cast<unsigned long long>(t.dyn_module),
                  static_cast<unsigned long long>(t.dyn_offset));
  }
  return buf;
}

ThreadView MakeThreadView(pid_t tid, std::string name, const DecodedSet& set,
                          const ReaderProfile* selected) {
  ThreadView v;
  v.tid = tid;
  v.name = std::move(name);
  v.set_known = set.ok() || set.address != 0;
  v.set_address = set.address;
  v.error = set.error;
  v.problems = set.problems;
  v.more_problems = set.more_problems;
  if (!set.ok()) return v;
  v.truncation = TruncationOf(set);
  v.labels = selected != nullptr ? ProfileView(set, *selected) : AbiView(set);
  if (selected == nullptr) {
    for (const ReaderProfile& p : ReaderProfiles()) {
      if (!p.flagged_by_default) continue;
      std::vector<std::string> notes = ProfileNotes(set, p);
      if (!notes.empty()) v.profile_notes.emplace_back(&p, std::move(notes));
    }
  }
  return v;
}

std::string JsonTruncation(const Truncation& t) {
  std::string out = "{";
  if (t.labels_cut()) {
    out +=
        "\"labels\":{\"count\":" + std::to_string(t.count) + ",\"kept\":" + std::to_string(t.kept);
    if (t.labels_limit != kLimitNone) {
      out += ",\"limit\":\"" + std::string(LimitFlag(t.labels_limit)) + "\"";
    }
    out += "}";
  }
  if (!t.keys.empty())
    out += (out.size() > 1 ? "," : "") + std::string("\"keys\":") + JsonCuts(t.keys);
  if (!t.values.empty()) {
    out += (out.size() > 1 ? "," : "") + std::string("\"values\":") + JsonCuts(t.values);
  }
  return out + "}";
}

std::vector<std::string> TruncationLines(const Truncation& t) {
  std::vector<std::string> lines;
  if (t.labels_cut()) {
    lines.push_back("truncated: " + std::to_string(t.kept) + " of " + std::to_string(t.count) +
                    " labels read" + LimitSuffix(t.labels_limit, " (the rest is unreadable)"));
  }
  for (const Truncation::Cut& c : t.keys) {
    lines.push_back("truncated: key of label " + std::to_string(c.index) + " (" +
                    QuotedKey(c.key, true) + "): " + std::to_string(c.kept) + " of " +
                    std::to_string(c.length) + " bytes kept" + LimitSuffix(c.limit, ""));
  }
  for (const Truncation::Cut& c : t.values) {
    lines.push_back("truncated: value of " + QuotedKey(c.key, false) + " (label " +
                    std::to_string(c.index) + "): " + std::to_string(c.kept) + " of " +
                    std::to_string(c.length) + " bytes kept" + LimitSuffix(c.limit, ""));
  }
  return lines;
}

std::string JsonThread(const ThreadView& v) {
  std::string line = "{\"tid\":" + std::to_string(v.tid) + ",\"name\":" + JsonString(v.name);
  if (v.error.empty())
    line += ",\"labels\":" + JsonLabels(v.set_address == 0 ? nullptr : &v.labels);
  if (v.set_known) line += ",\"set\":\"" + Hex(v.set_address) + "\"";
  for (const auto& [profile, notes] : v.profile_notes) {
    line += ",\"" + std::string(profile->name) + "\":" + JsonStrings(notes, 0);
  }
  if (v.truncation.any()) line += ",\"truncated\":" + JsonTruncation(v.truncation);
  if (!v.problems.empty()) line += ",\"problems\":" + JsonStrings(v.problems, v.more_problems);
  if (!v.error.empty()) line += ",\"error\":" + JsonString(v.error);
  if (!v.walk.empty()) {
    line += ",\"via\":" + JsonString(v.via) + ",\"walk\":" + JsonString(v.walk);
    if (v.walk_set != 0) line += ",\"walk_set\":\"" + Hex(v.walk_set) + "\"";
  }
  if (v.otel) line += ",\"otel\":" + JsonOtel(*v.otel);
  if (!v.readers.empty()) line += ",\"readers\":" + v.readers;
  if (v.held) {
    line += ",\"held\":{\"reads\":" + std::to_string(v.held->first) +
            ",\"us\":" + std::to_string(v.held->second) + "}";
  }
  if (!v.as.empty()) line += ",\"as\":" + JsonString(v.as);
  if (v.process_context != nullptr) {
    line += ",\"process_context\":" + JsonProcessContext(*v.process_context);
  }
  return line + "}\n";
}

std::string InspectHeader(pid_t pid, const AbiTarget& t) {
  std::string out = "process " + std::to_string(pid) + ": " + t.path + " (ABI v" +
                    std::to_string(t.version) + ", " + TlsDescription(t) + ")\n";
  if (t.otel) {
    out += std::string(kOtelSymbol) + ": " + TlsDescription(*t.otel) + "\n";
  } else if (t.otel_exported) {
    out += std::string(kOtelSymbol) + ": ! error: " + TextString(t.otel_error) + "\n";
  }
  if (t.node) {
    out += std::string(kNodeSymbol) + ": " + TlsDescription(*t.node) + "\n";
  } else if (t.node_exported) {
    out += std::string(kNodeSymbol) + ": ! error: " + TextString(t.node_error) + "\n";
  }
  return out;
}

std::string TextThread(const ThreadView& v) {
  std::string out = Columns(std::to_string(v.tid), TextString(v.name));
  out += v.error.empty() ? TextLabels(v.set_address == 0 ? nullptr : &v.labels)
                         : "! error: " + TextString(v.error);
  out += "\n";
  const std::string indent = Columns("", "");
  for (const std::string& l : TruncationLines(v.truncation)) out += indent + "! " + l + "\n";
  for (const std::string& p : v.problems) out += indent + "! problem: " + TextString(p) + "\n";
  if (v.more_problems != 0) {
    out += indent + "! problem: and " + std::to_string(v.more_problems) + " more\n";
  }
  for (const auto& [profile, notes] : v.profile_notes) {
    for (const std::string& n : notes) {
      out += indent + "! " + profile->display + ": " + TextString(n) + "\n";
    }
  }
  if (!v.as_note.empty()) out += indent + TextString(v.as_note) + "\n";
  if (!v.walk.empty()) {
    out += indent + "node walk: " + TextString(v.walk) +
           (v.via == "node-walk" && v.as.empty() ? " (the labels above)" : "") + "\n";
  }
  if (v.otel) {
    for (const std::string& l : TextOtelLines(*v.otel)) out += indent + l + "\n";
  }
  return out;
}

std::string SampleHeader(const SampleRun& run, const SampleTable& table) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), "sampled process %d for %.1f s at %g Hz: %llu on-CPU samples in ",
                run.pid, run.seconds, run.hz,
                static_cast<unsigned long long>(table.total_samples()));
  std::string late;
  if (run.late_ticks != 0) {
    late = "; " + std::to_string(run.late_ticks) + " of " + std::to_string(run.ticks) +
           " ticks late (the reader lost the CPU)";
  }
  return buf + std::to_string(table.Threads().size()) + " threads (" + run.tls + ")" + late + "\n";
}

std::string JsonSampleThread(const SampleRun& run, const SampleTable::Thread& th) {
  std::string out;
  for (const SampleTable::Entry* e : th.rows) {
    const SampleRow& row = e->row;
    const double share = static_cast<double>(e->samples) / static_cast<double>(th.samples);
    std::string line = "{\"tid\":" + std::to_string(th.tid) + ",\"name\":" + JsonString(th.name) +
                       ",\"samples\":" + std::to_string(e->samples) +
                       ",\"thread_samples\":" + std::to_string(th.samples) +
                       ",\"ticks\":" + std::to_string(run.ticks) +
                       ",\"late_ticks\":" + std::to_string(run.late_ticks) +
                       ",\"share\":" + std::to_string(share);
    if (row.other) {
      line += ",\"other\":true";
    } else if (!row.error.empty()) {
      line += ",\"error\":" + JsonString(row.error);
    } else if (run.by) {
      line += ",\"key\":" + JsonString(*run.by) +
              ",\"value\":" + (row.has_set ? JsonString(row.labels[0].value) : "null");
    } else {
      line += ",\"labels\":" + JsonLabels(row.has_set ? &row.labels : nullptr);
    }
    if (row.truncation.any()) line += ",\"truncated\":" + JsonTruncation(row.truncation);
    if (row.otel) {
      line += ",\"otel\":{";
      if (!row.otel->error.empty()) {
        line += "\"error\":" + JsonString(row.otel->error);
      } else {
        line += "\"attributes\":{";
        for (size_t i = 0; i < row.otel->attributes.size(); ++i) {
          const OtelAttribute& a = row.otel->attributes[i];
          line += (i ? "," : "") + JsonString(a.key) + ":" + JsonString(a.value);
        }
        line += "}";
      }
      line += ",\"traced_samples\":" + std::to_string(e->traced) +
              ",\"trace_ids\":" + std::to_string(e->trace_ids.size());
      if (e->trace_ids_capped) line += ",\"trace_ids_capped\":true";
      line += "}";
    }
    if (run.process_context != nullptr) {
      line += ",\"process_context\":" + JsonProcessContext(*run.process_context);
      run.process_context = nullptr;
    }
    out += line + "}\n";
  }
  return out;
}

std::string TextSampleOtel(const SampleTable::Entry& e) {
  if (!e.row.otel) return "";
  const SampleOtel& o = *e.row.otel;
  std::string out = " | otel ";
  if (!o.error.empty()) {
    out += "error: " + TextString(o.error);
  } else if (o.attributes.empty()) {
    out += "(no attributes)";
  } else {
    for (size_t i = 0; i < o.attributes.size(); ++i) {
      out += (i ? " " : "") + TextString(o.attributes[i].key) + "=" +
             TextString(o.attributes[i].value);
    }
  }
  if (e.traced != 0) {
    out += " (" + std::to_string(e.trace_ids.size()) + (e.trace_ids_capped ? "+" : "") +
           (e.trace_ids.size() == 1 && !e.trace_ids_capped ? " trace" : " traces") + " in " +
           std::to_string(e.traced) + " samples)";
  }
  return out;
}

std::string TextSampleThread(const SampleRun& run, const SampleTable::Thread& th) {
  char buf[128];
  std::string out = "\nthread " + std::to_string(th.tid) + " (" + TextString(th.name) +
                    "): " + std::to_string(th.samples) + " samples\n";
  std::snprintf(buf, sizeof(buf), "  %7s %8s  ", "share", "samples");
  out += buf + (run.by ? TextString(*run.by) : std::string("labels")) + "\n";
  for (const SampleTable::Entry* e : th.rows) {
    const SampleRow& row = e->row;
    std::string what;
    if (row.other) {
      what = "(other label sets, not kept: the sample's memory budget is spent)";
    } else if (!row.error.empty()) {
      what = "(error: " + TextString(row.error) + ")";
    } else if (run.by) {
      what = row.has_set ? TextString(row.labels[0].value) : "(no " + TextString(*run.by) + ")";
    } else {
      what = row.has_set ? TextLabels(&row.labels) : "(no labels)";
    }
    what += TextSampleOtel(*e);
    const double share = static_cast<double>(e->samples) / static_cast<double>(th.samples);
    std::snprintf(buf, sizeof(buf), "  %6.1f%% %8llu  ", share * 100,
                  static_cast<unsigned long long>(e->samples));
    out += buf + what + "\n";
    for (const std::string& l : TruncationLines(row.truncation)) {
      out += std::string(20, ' ') + "! " + l + "\n";
    }
  }
  return out;
}

}  // namespace customlabels::reader
