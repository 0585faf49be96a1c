// The command line: which options each command takes, their values, and the
// usage text. Pure: parsing never touches a process.
#ifndef CUSTOMLABELS_READER_OPTIONS_H_
#define CUSTOMLABELS_READER_OPTIONS_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "read_limits.h"
#include "reader_lookups.h"
#include "reader_profiles.h"

namespace customlabels::reader {

struct Options {
  std::string command;  // inspect, sample or check
  std::string target;   // pid (check: or a file)
  std::optional<pid_t> tid;
  bool json = false;
  const ReaderProfile* profile = nullptr;  // --reader-limits (or --as parca's)
  // --as NAME: the labels as that known reader's lookup finds them.
  const KnownReader* as = nullptr;
  bool readers = false;  // check --readers
  ReadLimits limits;
  double hz = 99;
  double seconds = 10;
  std::optional<std::string> by;
};

struct Parsed {
  std::optional<Options> options;  // nullopt: print `message` and exit
  int exit = 0;                    // when options is nullopt
  std::string message;             // usage error, or the help text (exit 0)
};

// Parses argv[1..]: a command, its target and only the options that command
// takes. Usage errors give exit 2 and a one-line message.
Parsed ParseOptions(const std::vector<std::string>& args);

// --help text (lists the reader profiles and the default limits).
std::string UsageText();

// "10s", "500ms", "2m", "1.5" (seconds); false unless > 0.
bool ParseDuration(const std::string& text, double* seconds);
// A decimal count with an optional K, M or G suffix (powers of 1024).
bool ParseSize(const std::string& text, uint64_t* out);
// A positive pid or tid.
bool ParsePid(const std::string& text, pid_t* out);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_OPTIONS_H_
