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
constexpr uint32_t kAnyString = 1, kAnyInt = 3, kAnyArray = 5;
constexpr uint32_t kArrayValues = 1;
}  // namespace field

std::string StringValue(std::string_view s) {
  ProtobufWriter any;
  any.Bytes(field::kAnyString, s);
  return any.Take();
}

std::string IntValue(int64_t v) {
  ProtobufWriter any;
  any.Int64(field::kAnyInt, v);
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
  const char* schema = contents.node_schema ? kNodeSchemaVersion : kThreadContextSchemaVersion;
  out.Message(field::kContextAttributes, KeyValue(kSchemaVersionKey, StringValue(schema)));
  out.Message(field::kContextAttributes, KeyValue(kAttributeKeyMapKey, key_map.data()));
  if (contents.node_schema) {
    const NodeLayout& l = contents.node_layout;
    const std::pair<const char*, uint32_t> ints[] = {
        {kRecordOffsetKey, l.record_slot_offset},
        {kTaggedSizeKey, l.tagged_size},
        {kMapTableOffsetKey, l.js_map_table_offset},
        {kHashMapHeaderKey, l.ordered_hash_map_header_size},
    };
    for (const auto& [key, value] : ints) {
      out.Message(field::kContextAttributes, KeyValue(key, IntValue(value)));
    }
  }
  return out.Take();
}

}  // namespace customlabels::core
