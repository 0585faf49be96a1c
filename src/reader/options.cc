#include "options.h"

#include <cstdlib>
#include <regex>

#include "sample_table.h"

namespace customlabels::reader {

namespace {

constexpr uint64_t kMaxLabelsCeiling = uint64_t{1} << 20;
constexpr uint64_t kMaxBytesCeiling = uint64_t{1} << 30;

enum Command : unsigned { kInspect = 1, kSample = 2, kCheck = 4 };

struct OptionSpec {
  const char* name;
  unsigned commands;  // Command bits
  bool takes_value;
};

constexpr OptionSpec kOptions[] = {
    {"--json", kInspect | kSample | kCheck, false},
    {"--tid", kInspect | kSample, true},
    {"--reader-limits", kInspect | kSample, true},
    {"--as", kInspect | kSample, true},
    {"--readers", kCheck, false},
    {"--max-labels", kInspect | kSample, true},
    {"--max-key-bytes", kInspect | kSample, true},
    {"--max-value-bytes", kInspect | kSample, true},
    {"--max-set-bytes", kInspect | kSample, true},
    {"--hz", kSample, true},
    {"--duration", kSample, true},
    {"--by", kSample, true},
};

std::string ProfileNames() {
  std::string names;
  for (const ReaderProfile& p : ReaderProfiles())
    names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

// Applies option `name` with `value` (empty for flags); an error message or "".
std::string Apply(const std::string& name, const std::string& value, Options* o) {
  if (name == "--json") {
    o->json = true;
  } else if (name == "--tid") {
    pid_t tid;
    if (!ParsePid(value, &tid)) return "--tid needs a thread id";
    o->tid = tid;
  } else if (name == "--reader-limits") {
    o->profile = FindReaderProfile(value);
    if (o->profile == nullptr) return "--reader-limits takes one of: " + ProfileNames();
  } else if (name == "--as") {
    o->as = FindKnownReader(value);
    if (o->as == nullptr || (o->as->id != KnownReaderId::kParca && o->as->id != KnownReaderId::kAbiV1)) {
      return "--as takes parca or abi-v1 (what the OpenTelemetry readers see is the otel part)";
    }
  } else if (name == "--readers") {
    o->readers = true;
  } else if (name == "--max-labels") {
    if (!ParseSize(value, &o->limits.max_labels) || o->limits.max_labels == 0 ||
        o->limits.max_labels > kMaxLabelsCeiling) {
      return "--max-labels takes 1 to " + std::to_string(kMaxLabelsCeiling);
    }
  } else if (name == "--max-key-bytes" || name == "--max-value-bytes" ||
             name == "--max-set-bytes") {
    uint64_t* limit = name == "--max-key-bytes"     ? &o->limits.max_key_bytes
                      : name == "--max-value-bytes" ? &o->limits.max_value_bytes
                                                    : &o->limits.max_set_bytes;
    const uint64_t least = name == "--max-value-bytes" ? 0 : 1;
    if (!ParseSize(value, limit) || *limit < least || *limit > kMaxBytesCeiling) {
      return name + " takes " + std::to_string(least) + " to 1G bytes (K, M, G: powers of 1024)";
    }
  } else if (name == "--hz") {
    char* end = nullptr;
    o->hz = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(o->hz >= 1 && o->hz <= 10000)) {
      return "--hz takes 1 to 10000";
    }
  } else if (name == "--duration") {
    if (!ParseDuration(value, &o->seconds)) return "--duration takes e.g. 10s, 500ms, 2m";
  } else if (name == "--by") {
    if (value.empty()) return "--by needs a label key";
    o->by = value;
  }
  return "";
}

Parsed Fail(const std::string& message) { return {std::nullopt, 2, message}; }

}  // namespace

bool ParsePid(const std::string& s, pid_t* out) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  *out = std::stoi(s);
  return *out > 0;
}

bool ParseDuration(const std::string& s, double* seconds) {
  static const std::regex re(R"(^([0-9]{1,9}(\.[0-9]{1,9})?)(ms|s|m)?$)");
  std::smatch m;
  if (!std::regex_match(s, m, re)) return false;
  const double v = std::stod(m[1]);
  *seconds = m[3] == "ms" ? v / 1000 : m[3] == "m" ? v * 60 : v;
  return *seconds > 0;
}

bool ParseSize(const std::string& s, uint64_t* out) {
  static const std::regex re(R"(^([0-9]{1,12})([kKmMgG]?)$)");
  std::smatch m;
  if (!std::regex_match(s, m, re)) return false;
  uint64_t v = std::stoull(m[1]);
  const char unit = m[2].length() == 0 ? '\0' : static_cast<char>(m[2].str()[0] | 0x20);
  const int shift = unit == 'k' ? 10 : unit == 'm' ? 20 : unit == 'g' ? 30 : 0;
  if (v > (UINT64_MAX >> shift)) return false;
  *out = v << shift;
  return true;
}

std::string UsageText() {
  const ReadLimits d;
  std::string profiles;
  for (const ReaderProfile& p : ReaderProfiles()) {
    profiles += "                        " + std::string(p.name) + ": " + p.display + ": " +
                std::to_string(p.max_labels) + " labels, keys " + std::to_string(p.max_key_bytes) +
                " B,\n                          values " + std::to_string(p.max_value_bytes) +
                " B, the " +
                (p.duplicates == ReaderProfile::Duplicates::kFirstWins ? "first" : "last") +
                " of a key wins\n";
  }
  std::string readers;
  for (const KnownReader& r : KnownReaders()) {
    std::string name = r.name;
    name.resize(13, ' ');
    readers += "  " + name + r.display + "\n";
  }
  return "usage: customlabels inspect <pid> [--tid TID] [--json] [--reader-limits NAME]\n"
         "                           [--as READER] [LIMITS]\n"
         "       customlabels sample <pid> [--hz 99] [--duration 10s] [--by KEY] [--tid TID]\n"
         "                           [--json] [--reader-limits NAME] [--as READER] [LIMITS]\n"
         "       customlabels check <addon-file | pid> [--readers [--json]]\n"
         "       customlabels versions [--json]\n"
         "\n"
         "inspect  the labels each thread's custom_labels_current_set shows right now\n"
         "sample   interrupt the on-CPU threads at --hz for --duration and show the share\n"
         "         of samples per label set (or per value of --by KEY), per thread\n"
         "check    validate an addon file or a running process against the ABI\n"
         "versions the npm packages the integrations support, and the range of each\n"
         "         (answered by the package's `customlabels` command from its table of\n"
         "         integrations: no process is read)\n"
         "\n"
         "Known readers: each one's own lookup, as its code does it (their sources are\n"
         "cited in src/reader/reader_lookups.cc), applied to the process:\n" +
         readers +
         "check <pid> --readers  will each of them see this process's labels, in this\n"
         "                      mode, on this Node.js? If not: the step of its lookup\n"
         "                      that fails, and what to do (--json: one JSON object)\n"
         "inspect --json        adds \"readers\": what each of them sees on the thread\n"
         "--as READER           the labels as that reader records them: parca (its\n"
         "                      current set, then its Node walk; its limits) or abi-v1\n"
         "\n"
         "OpenTelemetry: next to the labels, each thread's otel_thread_ctx_v1 record\n"
         "(OTEP 4947: trace id, span id, flags, attributes) is read when the addon\n"
         "exports it, its attribute keys resolved through the process context (OTEP\n"
         "4719, the OTEL_CTX mapping; its resource attributes are shown too). inspect\n"
         "prints an \"otel\" part per thread that has a record (--json: an \"otel\"\n"
         "field; the first line also has \"process_context\" when there is one). sample\n"
         "counts rows per label set and OpenTelemetry attribute set (trace ids vary\n"
         "per request, so they are not part of a row: each row counts its samples with\n"
         "a trace and its distinct trace ids, up to " +
         std::to_string(SampleTable::kMaxTraceIds) +
         "); with --by, only labels. check\n"
         "validates both when present; an addon without otel_thread_ctx_v1 is noted,\n"
         "not failed.\n"
         "\n"
         "--json                one JSON object per line; bytes that are not UTF-8 are\n"
         "                      written as \\udcXX (surrogateescape)\n"
         "--reader-limits NAME  show what that reader keeps; by default all that was read\n"
         "                      is shown and what each of them would cut is flagged:\n" +
         profiles +
         "\n"
         "LIMITS: what is copied from the target, which is never trusted; whatever they\n"
         "cut is reported (\"truncated\"). K, M and G are powers of 1024.\n"
         "--max-labels N        labels read of each set (default " +
         std::to_string(d.max_labels) + ", at most " + std::to_string(kMaxLabelsCeiling) +
         ")\n"
         "--max-key-bytes N     bytes of each key (default " +
         std::to_string(d.max_key_bytes) +
         ")\n"
         "--max-value-bytes N   bytes of each value (default " +
         std::to_string(d.max_value_bytes / 1024) +
         "K)\n"
         "--max-set-bytes N     bytes of keys and values of one set: the label that\n"
         "                      reaches it is cut, later ones are not read (default " +
         std::to_string(d.max_set_bytes >> 20) +
         "M)\n"
         "Byte limits go up to 1G. sample keeps at most " +
         std::to_string(SampleTable::kDefaultBudgetBytes >> 20) +
         " MiB of distinct label sets;\n"
         "samples of further ones count as \"other\". A thread whose set cannot be read\n"
         "(or that breaks the ABI) gets an error (or a problem note) of its own; the\n"
         "other threads are still shown.\n"
         "\n"
         "exit codes: 0 ok, also when some threads' sets could not be read,\n"
         "            1 check found problems, 2 usage, 3 no such process or thread,\n"
         "            4 not permitted to ptrace, 5 addon not loaded, 6 ABI mismatch,\n"
         "            7 unreadable memory: no thread's set could be read\n";
}

Parsed ParseOptions(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") return {std::nullopt, 0, UsageText()};
  }
  if (args.empty()) return {std::nullopt, 0, UsageText()};
  Options o;
  o.command = args[0];
  const unsigned command = o.command == "inspect"  ? kInspect
                           : o.command == "sample" ? kSample
                           : o.command == "check"  ? kCheck
                                                   : 0u;
  if (o.command == "versions") {
    return Fail(
        "versions is answered by the package's `customlabels` command (npx customlabels "
        "versions), not by the reader binary");
  }
  if (command == 0) return Fail("unknown command '" + o.command + "'");
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-') {
      if (!o.target.empty()) return Fail("unexpected argument '" + a + "'");
      o.target = a;
      continue;
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : kOptions) {
      if (a == s.name) spec = &s;
    }
    if (spec == nullptr) return Fail("unknown option '" + a + "'");
    if ((spec->commands & command) == 0) {
      std::string takers;
      if (spec->commands & kInspect) takers = "inspect";
      if (spec->commands & kSample) takers += takers.empty() ? "sample" : " and sample";
      if (spec->commands & kCheck) takers += takers.empty() ? "check" : " and check";
      return Fail(a + " is an option of " + takers + ", not of " + o.command);
    }
    std::string value;
    if (spec->takes_value) {
      if (i + 1 >= args.size()) return Fail(a + " needs a value");
      value = args[++i];
    }
    const std::string error = Apply(a, value, &o);
    if (!error.empty()) return Fail(error);
  }
  // --as parca shows what that agent keeps, unless --reader-limits says otherwise.
  if (o.as != nullptr && o.as->id == KnownReaderId::kParca && o.profile == nullptr) {
    o.profile = FindReaderProfile("parca");
  }
  if (o.target.empty()) {
    return Fail(o.command + " needs a " + (command == kCheck ? "file or pid" : "pid"));
  }
  pid_t pid;
  if (command != kCheck && !ParsePid(o.target, &pid)) {
    return Fail("'" + o.target + "' is not a pid");
  }
  if (o.readers && !ParsePid(o.target, &pid)) {
    return Fail("check --readers needs a pid: it reads a live process");
  }
  if (command == kCheck && o.json && !o.readers) return Fail("check --json goes with --readers");
  return {std::move(o), 0, ""};
}

}  // namespace customlabels::reader
