#include "protobuf_reader.h"

namespace customlabels::reader {

const char* WireName(unsigned wire) {
  switch (wire) {
    case ProtoField::kVarint:
      return "varint";
    case ProtoField::kFixed64:
      return "fixed64";
    case ProtoField::kLengthDelimited:
      return "length-delimited";
    case ProtoField::kFixed32:
      return "fixed32";
    default:
      return "group";
  }
}

bool ProtoReader::Fail(std::string what, size_t at) {
  error_ = std::move(what) + " at byte " + std::to_string(at);
  at_ = message_.size();  // stays at the end
  return false;
}

bool ProtoReader::Varint(uint64_t* out) {
  const size_t start = at_;
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (at_ >= message_.size()) return Fail("truncated varint", start);
    const auto b = static_cast<unsigned char>(message_[at_++]);
    if (shift == 63 && (b & 0x7e) != 0) return Fail("varint overflows 64 bits", start);
    v |= uint64_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return Fail("varint longer than 10 bytes", start);
}

bool ProtoReader::Fixed(size_t size, uint64_t* out) {
  if (message_.size() - at_ < size) {
    return Fail("truncated " + std::string(size == 8 ? "fixed64" : "fixed32"), at_);
  }
  uint64_t v = 0;
  for (size_t i = 0; i < size; ++i) {
    v |= uint64_t{static_cast<unsigned char>(message_[at_ + i])} << (8 * i);
  }
  at_ += size;
  *out = v;
  return true;
}

bool ProtoReader::Tag(uint32_t* number, unsigned* wire) {
  if (at_ >= message_.size()) return false;
  const size_t start = at_;
  uint64_t tag = 0;
  if (!Varint(&tag)) return false;
  *wire = static_cast<unsigned>(tag & 7);
  if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return Fail("invalid field number", start);
  *number = static_cast<uint32_t>(tag >> 3);
  if (*wire == 6 || *wire == 7) {
    return Fail("invalid wire type " + std::to_string(*wire), start);
  }
  return true;
}

bool ProtoReader::SkipGroup(uint32_t number, int depth) {
  const size_t start = at_;
  if (depth > kMaxGroupDepth) {
    return Fail("groups nested deeper than " + std::to_string(kMaxGroupDepth), start);
  }
  for (;;) {
    uint32_t n = 0;
    unsigned wire = 0;
    if (!Tag(&n, &wire)) {
      if (error_.empty()) Fail("group " + std::to_string(number) + " has no end", start);
      return false;
    }
    uint64_t v = 0;
    switch (wire) {
      case ProtoField::kVarint:
        if (!Varint(&v)) return false;
        break;
      case ProtoField::kFixed64:
      case ProtoField::kFixed32:
        if (!Fixed(wire == ProtoField::kFixed64 ? 8 : 4, &v)) return false;
        break;
      case ProtoField::kLengthDelimited: {
        const size_t at = at_;
        if (!Varint(&v)) return false;
        if (v > message_.size() - at_) return Fail("length runs past the end", at);
        at_ += static_cast<size_t>(v);
        break;
      }
      case 3:
        if (!SkipGroup(n, depth + 1)) return false;
        break;
      case 4:
        if (n != number)
          return Fail("end group " + std::to_string(n) + " in group " + std::to_string(number),
                      at_);
        return true;
    }
  }
}

bool ProtoReader::Next(ProtoField* f) {
  for (;;) {
    const size_t start = at_;
    uint32_t number = 0;
    unsigned wire = 0;
    if (!Tag(&number, &wire)) return false;
    *f = ProtoField{};
    f->number = number;
    f->wire = wire;
    f->offset = start;
    switch (wire) {
      case ProtoField::kVarint:
        return Varint(&f->scalar);
      case ProtoField::kFixed64:
        return Fixed(8, &f->scalar);
      case ProtoField::kFixed32:
        return Fixed(4, &f->scalar);
      case ProtoField::kLengthDelimited: {
        const size_t at = at_;
        uint64_t length = 0;
        if (!Varint(&length)) return false;
        if (length > message_.size() - at_) {
          return Fail("field " + std::to_string(number) + " of length " + std::to_string(length) +
                          " runs past the end (" + std::to_string(message_.size() - at_) +
                          " bytes left)",
                      at);
        }
        f->bytes = message_.substr(at_, static_cast<size_t>(length));
        at_ += static_cast<size_t>(length);
        return true;
      }
      case 3:
        if (!SkipGroup(number, 1)) return false;
        continue;  // skipped whole
      default:     // 4
        return Fail("end group " + std::to_string(number) + " outside any group", start);
    }
  }
}

}  // namespace customlabels::reader
