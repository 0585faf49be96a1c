#include "any_value.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "format.h"
#include "otel_record.h"
#include "protobuf_reader.h"

namespace customlabels::reader {

namespace {

bool Spend(ProtoBudget* budget, int depth, std::string* error) {
  if (depth > budget->max_depth) {
    *error = "values nested deeper than " + std::to_string(budget->max_depth);
    return false;
  }
  if (budget->values == 0) {
    *error = "more values than the reader decodes";
    return false;
  }
  --budget->values;
  return true;
}

bool WrongWire(const ProtoField& f, const char* message, std::string* error) {
  *error = std::string(message) + " field " + std::to_string(f.number) + " at byte " +
           std::to_string(f.offset) + " has wire type " + WireName(f.wire);
  return false;
}

// Decodes the repeated field 1 of ArrayValue / KeyValueList.
template <typename T, typename Decode>
bool DecodeRepeated(std::string_view message, const char* name, int depth, ProtoBudget* budget,
                    std::vector<T>* out, std::string* error, Decode decode) {
  ProtoReader reader(message);
  ProtoField f;
  while (reader.Next(&f)) {
    if (f.number != 1) continue;
    if (f.wire != ProtoField::kLengthDelimited) return WrongWire(f, name, error);
    T item;
    if (!decode(f.bytes, depth, budget, &item, error)) return false;
    out->push_back(std::move(item));
  }
  if (!reader.error().empty()) {
    *error = std::string(name) + ": " + reader.error();
    return false;
  }
  return true;
}

std::string JsonDouble(double d) {
  if (std::isnan(d)) return "\"NaN\"";
  if (std::isinf(d)) return d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", d);
  return buf;
}

std::string TextDouble(double d) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", d);
  return buf;
}

std::string HexOf(const std::string& bytes) {
  return HexBytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

bool DecodeAnyValue(std::string_view message, int depth, ProtoBudget* budget, AnyValue* out,
                    std::string* error) {
  if (!Spend(budget, depth, error)) return false;
  ProtoReader reader(message);
  ProtoField f;
  while (reader.Next(&f)) {
    if (f.number < 1 || f.number > 7) continue;  // unknown: skipped
    const bool delimited = f.number == 1 || f.number >= 5;
    const unsigned want = delimited       ? ProtoField::kLengthDelimited
                          : f.number == 4 ? ProtoField::kFixed64
                                          : ProtoField::kVarint;
    if (f.wire != want) return WrongWire(f, "AnyValue", error);
    *out = AnyValue{};  // a oneof: the last field wins
    switch (f.number) {
      case 1:
        out->kind = AnyValue::Kind::kString;
        out->bytes.assign(f.bytes);
        break;
      case 2:
        out->kind = AnyValue::Kind::kBool;
        out->boolean = f.scalar != 0;
        break;
      case 3:
        out->kind = AnyValue::Kind::kInt;
        out->integer = static_cast<int64_t>(f.scalar);
        break;
      case 4:
        out->kind = AnyValue::Kind::kDouble;
        std::memcpy(&out->number, &f.scalar, sizeof(double));
        break;
      case 5:
        out->kind = AnyValue::Kind::kArray;
        if (!DecodeRepeated(f.bytes, "ArrayValue", depth + 1, budget, &out->items, error,
                            DecodeAnyValue)) {
          return false;
        }
        break;
      case 6:
        out->kind = AnyValue::Kind::kKvList;
        if (!DecodeRepeated(f.bytes, "KeyValueList", depth + 1, budget, &out->pairs, error,
                            DecodeKeyValue)) {
          return false;
        }
        break;
      case 7:
        out->kind = AnyValue::Kind::kBytes;
        out->bytes.assign(f.bytes);
        break;
    }
  }
  if (!reader.error().empty()) {
    *error = "AnyValue: " + reader.error();
    return false;
  }
  return true;
}

bool DecodeKeyValue(std::string_view message, int depth, ProtoBudget* budget, KeyValue* out,
                    std::string* error) {
  if (!Spend(budget, depth, error)) return false;
  ProtoReader reader(message);
  ProtoField f;
  while (reader.Next(&f)) {
    if (f.number != 1 && f.number != 2) continue;
    if (f.wire != ProtoField::kLengthDelimited) return WrongWire(f, "KeyValue", error);
    if (f.number == 1) {
      out->key.assign(f.bytes);
    } else {
      out->value = AnyValue{};  // a message field seen twice merges; for a oneof, last wins
      if (!DecodeAnyValue(f.bytes, depth, budget, &out->value, error)) return false;
    }
  }
  if (!reader.error().empty()) {
    *error = "KeyValue: " + reader.error();
    return false;
  }
  return true;
}

std::string JsonAnyValue(const AnyValue& v) {
  switch (v.kind) {
    case AnyValue::Kind::kEmpty:
      return "null";
    case AnyValue::Kind::kString:
      return JsonString(v.bytes);
    case AnyValue::Kind::kBool:
      return v.boolean ? "true" : "false";
    case AnyValue::Kind::kInt:
      return std::to_string(v.integer);
    case AnyValue::Kind::kDouble:
      return JsonDouble(v.number);
    case AnyValue::Kind::kBytes:
      return "\"" + HexOf(v.bytes) + "\"";
    case AnyValue::Kind::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < v.items.size(); ++i) out += (i ? "," : "") + JsonAnyValue(v.items[i]);
      return out + "]";
    }
    case AnyValue::Kind::kKvList:
      return JsonKeyValues(v.pairs);
  }
  return "null";
}

std::string JsonKeyValues(const std::vector<KeyValue>& pairs) {
  std::string out = "{";
  for (size_t i = 0; i < pairs.size(); ++i) {
    out += (i ? "," : "") + JsonString(pairs[i].key) + ":" + JsonAnyValue(pairs[i].value);
  }
  return out + "}";
}

std::string TextAnyValue(const AnyValue& v) {
  switch (v.kind) {
    case AnyValue::Kind::kEmpty:
      return "(empty)";
    case AnyValue::Kind::kString:
      return TextString(v.bytes);
    case AnyValue::Kind::kBool:
      return v.boolean ? "true" : "false";
    case AnyValue::Kind::kInt:
      return std::to_string(v.integer);
    case AnyValue::Kind::kDouble:
      return TextDouble(v.number);
    case AnyValue::Kind::kBytes:
      return "0x" + HexOf(v.bytes);
    case AnyValue::Kind::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < v.items.size(); ++i) out += (i ? ", " : "") + TextAnyValue(v.items[i]);
      return out + "]";
    }
    case AnyValue::Kind::kKvList: {
      std::string out = "{";
      for (size_t i = 0; i < v.pairs.size(); ++i) {
        out += (i ? ", " : "") + TextString(v.pairs[i].key) + "=" + TextAnyValue(v.pairs[i].value);
      }
      return out + "}";
    }
  }
  return "(empty)";
}

std::string TextKeyValues(const std::vector<KeyValue>& pairs) {
  if (pairs.empty()) return "(none)";
  std::string out;
  for (const KeyValue& kv : pairs) {
    if (!out.empty()) out += " ";
    out += TextString(kv.key) + "=" + TextAnyValue(kv.value);
  }
  return out;
}

}  // namespace customlabels::reader
