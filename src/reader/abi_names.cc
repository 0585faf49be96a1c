#include "abi_names.h"

#include <regex>

namespace customlabels::reader {

bool IsAddonFileName(const std::string& path) {
  static const std::regex re(kAddonNamePattern);
  return std::regex_search(path, re);
}

}  // namespace customlabels::reader
