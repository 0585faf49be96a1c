#include "label_set_decoder.h"

#include <algorithm>

#include "format.h"

namespace customlabels::reader {

namespace {

constexpr uint64_t kLabelBytes = 32;  // sizeof(custom_labels_label_t)
constexpr size_t kNoteKeyBytes = 32;  // of a key quoted in a problem note

// "label 3 (key "abc")", the key's bytes as read (the output escapes them).
std::string Name(const Slot& s) {
  std::string out = "label " + std::to_string(s.index);
  if (s.key_null || (s.key.empty() && s.key_length != 0)) return out;
  out += " (key \"" + s.key.substr(0, kNoteKeyBytes);
  if (s.key.size() > kNoteKeyBytes || s.key_length > s.key.size()) out += "...";
  return out + "\")";
}

struct Budget {
  uint64_t left;
  // Bytes to copy of a string of `length` bytes: capped by `cap` (which
  // reports as `cap_limit`) and by what is left of the set's budget.
  uint64_t Take(uint64_t length, uint64_t cap, Limit cap_limit, Limit* cut) {
    uint64_t n = std::min(length, cap);
    Limit why = length > cap ? cap_limit : kLimitNone;
    if (n > left) {
      n = left;
      why = kLimitSetBytes;
    }
    left -= n;
    *cut = n < length ? why : kLimitNone;
    return n;
  }
};

bool ReadString(const MemorySource& memory, uint64_t buf, uint64_t n, std::string* out) {
  out->resize(static_cast<size_t>(n));
  if (memory.Read(buf, out->data(), out->size())) return true;
  out->clear();
  return false;
}

// Decodes one raw label {key.len, key.buf, value.len, value.buf}.
Slot DecodeLabel(const MemorySource& memory, uint64_t index, const uint64_t raw[4],
                 const ReadLimits& limits, Budget* budget, DecodedSet* set) {
  Slot s;
  s.index = index;
  s.key_length = raw[0];
  s.value_length = raw[2];
  if (raw[1] == 0) {
    s.key_null = true;
    return s;
  }
  const uint64_t key_bytes = budget->Take(raw[0], limits.max_key_bytes, kLimitKeyBytes, &s.key_cut);
  if (!ReadString(memory, raw[1], key_bytes, &s.key)) {
    s.unreadable = true;
    set->Problem(Name(s) + ": cannot read its key (" + std::to_string(raw[0]) + " bytes at " +
                 Hex(raw[1]) + "); ignored");
    return s;
  }
  if (raw[3] == 0) {
    s.value_null = true;
    set->Problem(Name(s) + ": value.buf is NULL, which the ABI forbids; ignored");
    return s;
  }
  const uint64_t value_bytes =
      budget->Take(raw[2], limits.max_value_bytes, kLimitValueBytes, &s.value_cut);
  if (!ReadString(memory, raw[3], value_bytes, &s.value)) {
    s.unreadable = true;
    set->Problem(Name(s) + ": cannot read its value (" + std::to_string(raw[2]) + " bytes at " +
                 Hex(raw[3]) + "); ignored");
  }
  return s;
}

}  // namespace

void DecodedSet::Problem(std::string note) {
  if (problems.size() < kMaxProblems) {
    problems.push_back(std::move(note));
  } else {
    ++more_problems;
  }
}

DecodedSet DecodeLabelSet(const MemorySource& memory, uint64_t set_address,
                          const ReadLimits& limits) {
  DecodedSet d;
  d.address = set_address;
  if (set_address == 0) return d;
  uint64_t header[3];  // storage, count, capacity
  if (!memory.Read(set_address, header, sizeof(header))) {
    d.error = "cannot read the label set at " + Hex(set_address);
    return d;
  }
  d.storage = header[0];
  d.count = header[1];
  d.capacity = header[2];
  if (set_address % 8 != 0) {
    d.Problem("set pointer " + Hex(set_address) +
              " is misaligned (custom_labels_labelset_t is 8-byte aligned); read anyway");
  }
  if (d.count == 0) return d;
  if (d.storage == 0) {
    d.error = "label storage is NULL but count is " + std::to_string(d.count);
    return d;
  }
  if (d.storage % 8 != 0) {
    d.Problem("label storage " + Hex(d.storage) +
              " is misaligned (custom_labels_label_t is 8-byte aligned); read anyway");
  }
  const uint64_t to_read = std::min(d.count, limits.max_labels);
  // Labels that fit between storage and the end of the address space:
  // floor((2^64 - storage) / 32), without computing 2^64.
  const uint64_t above = UINT64_MAX - d.storage;  // 2^64 - storage - 1
  const uint64_t room = above / kLabelBytes + (above % kLabelBytes == kLabelBytes - 1 ? 1 : 0);
  if (to_read > room) {
    d.error = "label storage at " + Hex(d.storage) + " with " + std::to_string(d.count) +
              " labels runs past the end of the address space";
    return d;
  }
  if (d.count > room) {
    d.Problem("count " + std::to_string(d.count) + " cannot be right: that many labels of " +
              std::to_string(kLabelBytes) + " bytes do not fit above " + Hex(d.storage));
  }
  Budget budget{limits.max_set_bytes};
  uint64_t raw[DecodedSet::kChunkLabels * 4];
  uint64_t i = 0;
  bool stopped = false;  // by the set budget, or storage that cannot be read
  while (i < to_read && !stopped) {
    const uint64_t n = std::min(DecodedSet::kChunkLabels, to_read - i);
    const uint64_t at = d.storage + i * kLabelBytes;
    uint64_t readable = n;
    if (!memory.Read(at, raw, static_cast<size_t>(n * kLabelBytes))) {
      // Find where the storage stops being readable, one label at a time.
      readable = 0;
      while (readable < n &&
             memory.Read(at + readable * kLabelBytes, &raw[readable * 4], kLabelBytes)) {
        ++readable;
      }
    }
    for (uint64_t k = 0; k < readable && !stopped; ++k) {
      d.slots.push_back(DecodeLabel(memory, i + k, &raw[k * 4], limits, &budget, &d));
      // An exhausted budget ends the read (unless this was the last label).
      stopped = budget.left == 0 && i + k + 1 < d.count;
      if (stopped) d.labels_cut = kLimitSetBytes;
    }
    if (readable < n && !stopped) {
      const uint64_t first = i + readable;
      if (first == 0) {
        d.error = "cannot read label storage at " + Hex(d.storage) + " (" +
                  std::to_string(d.count) + " labels)";
        d.slots.clear();
        return d;
      }
      d.Problem("label storage is unreadable from label " + std::to_string(first) + " at " +
                Hex(d.storage + first * kLabelBytes) + "; " + std::to_string(first) + " of " +
                std::to_string(d.count) + " labels read");
      stopped = true;
    }
    i += n;
  }
  if (!stopped && to_read < d.count) d.labels_cut = kLimitLabels;
  return d;
}

}  // namespace customlabels::reader
