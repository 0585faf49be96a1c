#include "protobuf_writer.h"

namespace customlabels::core {

namespace {
constexpr uint32_t kWireTypeVarint = 0;
constexpr uint32_t kWireTypeLengthDelimited = 2;
}  // namespace

void ProtobufWriter::Varint(uint64_t value) {
  while (value >= 0x80) {
    out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out_.push_back(static_cast<char>(value));
}

void ProtobufWriter::Bytes(uint32_t field, std::string_view bytes) {
  Varint((uint64_t{field} << 3) | kWireTypeLengthDelimited);
  Varint(bytes.size());
  out_.append(bytes.data(), bytes.size());
}

void ProtobufWriter::Int64(uint32_t field, int64_t value) {
  Varint((uint64_t{field} << 3) | kWireTypeVarint);
  Varint(static_cast<uint64_t>(value));
}

}  // namespace customlabels::core
