#include "process_context_payload.h"

#include <string_view>

#include "protobuf_writer.h"

namespace customlabels::core {

namespace {

// Field numbers of the messages named in the header.
namespace field {
constexpr uint32_t kContextResource = 1, kContextAttributes = 2;
constexpr uint32_t kResourceAttributes = 1;
constexpr uint32_t kKeyValueKey = 1, kKeyValueValue = 2;
constexpr uint32_t kAnyString = 1, kAnyArray = 5;
constexpr uint32_t kArrayValues = 1;
}  // namespace field

std::string StringValue(std::string_view s) {
  ProtobufWriter any;
  any.Bytes(field::kAnyString, s);
  return any.Take();
}

std::string KeyValue(std::string_view key, const std::string& any_value) {
  ProtobufWriter kv;
  kv.Bytes(field::kKeyValueKey, key);
  kv.Message(field::kKeyValueValue, any_value);
  return kv.Take();
}

}  // namespace

std::string EncodeProcessContext(const ProcessContextContents& contents) {
  ProtobufWriter resource;
  for (const auto& [key, value] : contents.resource) {
    resource.Message(field::kResourceAttributes, KeyValue(key, StringValue(value)));
  }
  ProtobufWriter keys;
  for (const std::string& key : contents.attribute_keys) {
    keys.Message(field::kArrayValues, StringValue(key));
  }
  ProtobufWriter key_map;
  key_map.Message(field::kAnyArray, keys.data());

  ProtobufWriter out;
  out.Message(field::kContextResource, resource.data());
  out.Message(field::kContextAttributes,
              KeyValue(kSchemaVersionKey, StringValue(kThreadContextSchemaVersion)));
  out.Message(field::kContextAttributes, KeyValue(kAttributeKeyMapKey, key_map.data()));
  return out.Take();
}

}  // namespace customlabels::core
