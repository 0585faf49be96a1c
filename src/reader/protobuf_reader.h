// A bounded reader of the protobuf wire format over bytes in memory: one
// field at a time, every length checked against what is left, unknown
// fields of every wire type skippable (groups are skipped whole, nested at
// most kMaxGroupDepth deep). Nothing is allocated; malformed input stops
// the reader with a message that says what and where.
#ifndef CUSTOMLABELS_READER_PROTOBUF_READER_H_
#define CUSTOMLABELS_READER_PROTOBUF_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace customlabels::reader {

struct ProtoField {
  enum Wire : unsigned { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };
  uint32_t number = 0;
  unsigned wire = kVarint;
  uint64_t scalar = 0;     // kVarint, kFixed64, kFixed32
  std::string_view bytes;  // kLengthDelimited
  size_t offset = 0;       // of the field's tag in the message
};

class ProtoReader final {
 public:
  static constexpr int kMaxGroupDepth = 16;

  explicit ProtoReader(std::string_view message) : message_(message) {}
  // The next field (groups, wire types 3 and 4, are skipped); false at the
  // end of the message, or on malformed input with error() set.
  bool Next(ProtoField* field);
  const std::string& error() const { return error_; }

 private:
  bool Varint(uint64_t* out);
  bool Fixed(size_t size, uint64_t* out);
  bool Fail(std::string what, size_t at);
  // Skips to the end group of field `number`, `depth` groups deep.
  bool SkipGroup(uint32_t number, int depth);
  // Reads a tag: false at the end (error() empty) or on malformed input.
  bool Tag(uint32_t* number, unsigned* wire);

  std::string_view message_;
  size_t at_ = 0;
  std::string error_;
};

// "varint", "fixed64", "length-delimited", "fixed32".
const char* WireName(unsigned wire);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_PROTOBUF_READER_H_
