// customlabels: reads the labels a live process exposes through the Custom
// Label ABI v1, the way eBPF profilers do. See `customlabels --help`.
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "options.h"

int main(int argc, char** argv) {
  namespace r = customlabels::reader;
  const r::Parsed parsed = r::ParseOptions(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.options) {
    if (parsed.exit == r::kOk) {
      std::fputs(parsed.message.c_str(), stdout);
    } else {
      std::fprintf(stderr, "customlabels: %s\n%s", parsed.message.c_str(), r::UsageText().c_str());
    }
    return parsed.exit;
  }
  const r::Options& o = *parsed.options;
  if (o.command == "check") return r::RunCheck(o);
  return o.command == "inspect" ? r::RunInspect(o) : r::RunSample(o);
}
