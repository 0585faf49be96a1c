// OpenTelemetry's AnyValue and KeyValue (opentelemetry.proto.common.v1) as
// the process context carries them, decoded from protobuf bytes within a
// budget (nesting depth, number of values), and printed as JSON and text.
#ifndef CUSTOMLABELS_READER_ANY_VALUE_H_
#define CUSTOMLABELS_READER_ANY_VALUE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace customlabels::reader {

struct KeyValue;

struct AnyValue {
  enum class Kind { kEmpty, kString, kBool, kInt, kDouble, kArray, kKvList, kBytes };
  Kind kind = Kind::kEmpty;  // kEmpty: no field of the oneof was set
  std::string bytes;         // kString (UTF-8 by the spec; not checked here), kBytes
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;
  std::vector<AnyValue> items;  // kArray
  std::vector<KeyValue> pairs;  // kKvList
};

struct KeyValue {
  std::string key;
  AnyValue value;
};

// What one decode may spend: AnyValues nested at most max_depth deep, and
// at most `values` AnyValues and KeyValues in all.
struct ProtoBudget {
  int max_depth = 16;
  uint64_t values = 4096;
};

// Decode an AnyValue / KeyValue message; false with `error` set on
// malformed input, a wire type a known field does not have, or a spent
// budget. Unknown fields are skipped; of the oneof, the last field wins.
bool DecodeAnyValue(std::string_view message, int depth, ProtoBudget* budget, AnyValue* out,
                    std::string* error);
bool DecodeKeyValue(std::string_view message, int depth, ProtoBudget* budget, KeyValue* out,
                    std::string* error);

// JSON: strings as strings, bool, int and finite double as numbers, other
// doubles as "NaN"/"Infinity"/"-Infinity", bytes as a string of lowercase
// hex, arrays as arrays, kvlists as objects, an empty value as null.
std::string JsonAnyValue(const AnyValue& value);
// {"k":v,...}
std::string JsonKeyValues(const std::vector<KeyValue>& pairs);
// Text: strings as they are (escaped for terminals), [a, b], {k=v, k=v},
// bytes as 0x<hex>, an empty value as (empty).
std::string TextAnyValue(const AnyValue& value);
// k=v k=v, or "(none)"
std::string TextKeyValues(const std::vector<KeyValue>& pairs);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_ANY_VALUE_H_
