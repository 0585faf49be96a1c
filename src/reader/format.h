// Output encodings for label bytes (strings only: label_views.h formats
// whole label sets).
#ifndef CUSTOMLABELS_READER_FORMAT_H_
#define CUSTOMLABELS_READER_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace customlabels::reader {

// A JSON string literal. Valid UTF-8 is kept; each byte of an invalid
// sequence b becomes the lone surrogate \udcXX (XX = b), as Python's
// "surrogateescape" does, so every byte can be recovered.
std::string JsonString(const std::string& bytes);
// A JSON array of strings, plus "and N more problems" when `more` is not 0.
std::string JsonStrings(const std::vector<std::string>& items, uint64_t more);
// For terminals: printable UTF-8 as is; control and invalid bytes as \xNN.
std::string TextString(const std::string& bytes);
// Whether `bytes` is all valid UTF-8 (no overlongs, no surrogates).
bool IsValidUtf8(const std::string& bytes);
// "0x1f" (lowercase hex).
std::string Hex(uint64_t value);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_FORMAT_H_
