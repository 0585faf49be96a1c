// The few protobuf wire-format primitives the process context needs
// (OTEP 4719's payload is a protobuf message): varints and length-delimited
// fields, nested by writing the inner message first, and the varint fields
// of integer values.
#ifndef CUSTOMLABELS_CORE_PROTOBUF_WRITER_H_
#define CUSTOMLABELS_CORE_PROTOBUF_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace customlabels::core {

class ProtobufWriter final {
 public:
  // Field `field` with wire type 2 (length-delimited): a string, bytes or an
  // already encoded message.
  void Bytes(uint32_t field, std::string_view bytes);
  // The same as Bytes(); says that `message` is an encoded message.
  void Message(uint32_t field, std::string_view message) { Bytes(field, message); }
  // Field `field` with wire type 0 (varint): an int64, two's complement.
  void Int64(uint32_t field, int64_t value);

  const std::string& data() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void Varint(uint64_t value);

  std::string out_;
};

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_PROTOBUF_WRITER_H_
