#include "otel_record.h"

#include <cstring>
#include <unordered_map>

#include "format.h"

namespace customlabels::reader {

namespace {

void Note(std::vector<std::string>* problems, uint64_t* more, std::string note) {
  if (problems->size() < OtelRecord::kMaxProblems) {
    problems->push_back(std::move(note));
  } else {
    ++*more;
  }
}

}  // namespace

bool OtelRecord::has_trace() const {
  for (uint8_t b : trace_id) {
    if (b != 0) return true;
  }
  return false;
}

void OtelRecord::Problem(std::string note) { Note(&problems, &more_problems, std::move(note)); }

std::string HexBytes(const uint8_t* bytes, size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * size);
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 15]);
  }
  return out;
}

OtelRecord DecodeOtelRecord(const MemorySource& memory, uint64_t address) {
  OtelRecord r;
  r.address = address;
  if (address == 0) return r;
  if (address % 2 != 0) {
    r.error = "record pointer " + Hex(address) + " is misaligned (records are 2-byte aligned)";
    return r;
  }
  unsigned char header[OtelRecord::kHeaderBytes];
  if (!memory.Read(address, header, sizeof(header))) {
    r.error = "cannot read the thread context record at " + Hex(address);
    return r;
  }
  std::memcpy(r.trace_id.data(), header, 16);
  std::memcpy(r.span_id.data(), header + 16, 8);
  r.valid = header[24];
  r.trace_flags = header[25];
  std::memcpy(&r.attrs_size, header + 26, 2);
  if (r.valid != 1) {
    r.error = "valid is " + std::to_string(r.valid) + ", not 1: the record is ignored";
    return r;
  }
  if (r.attrs_size > OtelRecord::kRecommendedAttrsBytes) {
    r.Problem("attrs_data_size " + std::to_string(r.attrs_size) + " makes the record " +
              std::to_string(OtelRecord::kHeaderBytes + r.attrs_size) +
              " bytes, over the OTEP's 640-byte recommendation (readers may drop it)");
  }
  std::string attrs(r.attrs_size, '\0');
  if (!memory.Read(address + OtelRecord::kHeaderBytes, attrs.data(), attrs.size())) {
    r.error = "cannot read the record's " + std::to_string(r.attrs_size) + " attribute bytes at " +
              Hex(address + OtelRecord::kHeaderBytes);
    return r;
  }
  size_t at = 0;
  while (at < attrs.size()) {
    if (attrs.size() - at < 2) {
      r.Problem("attrs_data ends inside an entry header at byte " + std::to_string(at) + " of " +
                std::to_string(attrs.size()) + "; the rest is ignored");
      break;
    }
    const auto index = static_cast<uint8_t>(attrs[at]);
    const auto length = static_cast<uint8_t>(attrs[at + 1]);
    if (attrs.size() - at - 2 < length) {
      r.Problem("the entry at byte " + std::to_string(at) + " (key index " + std::to_string(index) +
                ") needs " + std::to_string(length) + " value bytes but attrs_data has " +
                std::to_string(attrs.size() - at - 2) + " left; the rest is ignored");
      break;
    }
    r.entries.push_back({index, attrs.substr(at + 2, length)});
    at += 2 + size_t{length};
  }
  return r;
}

std::vector<OtelAttribute> ResolveOtelAttributes(const OtelRecord& record,
                                                 const AttributeKeyMap* key_map,
                                                 std::vector<std::string>* problems,
                                                 uint64_t* more_problems) {
  std::vector<OtelAttribute> out;
  if (!record.ok()) return out;
  bool dropped[256] = {};
  std::unordered_map<unsigned, size_t> position;  // key index -> out[i]
  for (const OtelRecord::Entry& e : record.entries) {
    const unsigned i = e.key_index;
    const bool known = key_map != nullptr && i < key_map->size() && (*key_map)[i].has_value();
    if (!known) {
      if (!dropped[i]) {
        dropped[i] = true;
        Note(problems, more_problems,
             "attribute key index " + std::to_string(i) +
                 (key_map == nullptr    ? " cannot be resolved: no attribute key map"
                  : i < key_map->size() ? " names an attribute key map element that is not a key"
                                        : " is outside the attribute key map (" +
                                              std::to_string(key_map->size()) + " keys)") +
                 "; dropped");
      }
      continue;
    }
    const auto it = position.find(i);
    if (it == position.end()) {
      position.emplace(i, out.size());
      out.push_back({e.key_index, *(*key_map)[i], e.value});
    } else {
      out[it->second].value = e.value;  // the last occurrence wins
    }
  }
  for (const OtelAttribute& a : out) {
    if (!IsValidUtf8(a.value)) {
      Note(problems, more_problems, "value of attribute \"" + a.key + "\" is not valid UTF-8");
    }
  }
  return out;
}

}  // namespace customlabels::reader
