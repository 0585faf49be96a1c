// The names the Custom Label ABI v1 and OTEP 4947 give: the thread-local
// symbols readers look up and the file name they find the module by. Shared
// by the ABI reader (abi_reader.h) and the Parca agent's lookup
// (parca_lookup.h), which depend on nothing else of each other.
#ifndef CUSTOMLABELS_READER_ABI_NAMES_H_
#define CUSTOMLABELS_READER_ABI_NAMES_H_

#include <string>

namespace customlabels::reader {

constexpr const char* kCurrentSetSymbol = "custom_labels_current_set";
constexpr const char* kOtelSymbol = "otel_thread_ctx_v1";

// The readers find the ABI's module by its file name (the spec's pattern).
constexpr const char* kAddonNamePattern = R"(libcustomlabels.*\.so$|customlabels\.node$)";
bool IsAddonFileName(const std::string& path);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_ABI_NAMES_H_
