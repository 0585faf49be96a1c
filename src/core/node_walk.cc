#include "node_walk.h"

namespace customlabels::core {

namespace {

constexpr uint64_t kHeapObjectTag = 1;
constexpr int64_t kEntrySize = 3;
constexpr int64_t kLoadFactor = 2;
// A frame maps each AsyncLocalStorage that has a store to it: a handful.
constexpr int64_t kMaxBuckets = int64_t{1} << 16;

bool IsSmi(uint64_t word) { return (word & 0xffffffffULL) == 0; }
int64_t SmiValue(uint64_t word) { return static_cast<int64_t>(word) >> 32; }
bool IsHeapObject(uint64_t word) { return (word & kHeapObjectTag) != 0; }
uint64_t Untag(uint64_t word) { return word - kHeapObjectTag; }

}  // namespace

WalkResult WalkNodeContext(const WordSource& memory, const NodeDiscovery& d,
                           const NodeLayout& layout) {
  WalkResult r;
  auto read = [&memory, &r](uint64_t address, uint64_t* out, const char* what) {
    if (memory.ReadWord(address, out)) return true;
    r.status = WalkStatus::kUnreadable;
    r.what = what;
    return false;
  };
  auto malformed = [&r](const char* what) {
    r.status = WalkStatus::kMalformed;
    r.what = what;
    return r;
  };
  if (d.cped_slot == 0) {
    r.status = WalkStatus::kGateClosed;
    return r;
  }
  // Tagged words are 8 bytes with 32-bit Smis in the upper half: the layout
  // of every Node.js build (no pointer compression); nothing else is walked.
  if (layout.tagged_size != 8) return malformed("tagged_size is not 8");
  uint64_t frame = 0;
  if (!read(d.cped_slot, &frame, "the continuation data slot")) return r;
  r.frame = frame;
  if (frame == d.undefined_value) {
    r.status = WalkStatus::kNoFrame;
    return r;
  }
  if (!IsHeapObject(frame)) return malformed("the continuation data is not an object");
  uint64_t table = 0;
  if (!read(Untag(frame) + layout.js_map_table_offset, &table, "the frame's table")) return r;
  if (!IsHeapObject(table)) return malformed("the frame's table is not an object");
  const uint64_t base = Untag(table);
  // A FixedArray: map, length, then the array proper.
  uint64_t length_word = 0;
  if (!read(base + 8, &length_word, "the table's length")) return r;
  if (!IsSmi(length_word) || SmiValue(length_word) < 3) {
    return malformed("the table's length is not a small integer of at least 3");
  }
  const int64_t length = SmiValue(length_word);
  const uint64_t words = base + layout.ordered_hash_map_header_size;
  uint64_t counts[3] = {};
  for (int i = 0; i < 3; ++i) {
    if (!read(words + 8 * static_cast<uint64_t>(i), &counts[i], "the table's counts")) return r;
    // The element count is a forwarding pointer in a table being rehashed.
    if (!IsSmi(counts[i])) return malformed("the table's counts are not small integers");
  }
  const int64_t elements = SmiValue(counts[0]);
  const int64_t deleted = SmiValue(counts[1]);
  const int64_t buckets = SmiValue(counts[2]);
  if (buckets <= 0 || buckets > kMaxBuckets || (buckets & (buckets - 1)) != 0) {
    return malformed("the bucket count is not a power of two up to 2^16");
  }
  const int64_t capacity = buckets * kLoadFactor;
  if (elements < 0 || deleted < 0 || elements + deleted > capacity) {
    return malformed("the element counts are out of range");
  }
  if (length < 3 + buckets + kEntrySize * capacity) {
    return malformed("the table is shorter than its counts say");
  }
  const int64_t used = elements + deleted;

  uint64_t als = 0;
  if (!read(d.als_handle, &als, "the storage's handle")) return r;
  auto word_at = [words](int64_t index) { return words + 8 * static_cast<uint64_t>(index); };
  uint64_t head = 0;
  const int64_t bucket = static_cast<int64_t>(d.als_identity_hash) & (buckets - 1);
  if (!read(word_at(3 + bucket), &head, "a bucket")) return r;
  int64_t entry = IsSmi(head) ? SmiValue(head) : -1;
  // Bounded by `used` (a cyclic chain ends here as "not in frame") and by
  // kMaxChainEntries, which a real frame never reaches.
  int64_t steps = used < kMaxChainEntries ? used : kMaxChainEntries;
  for (; steps > 0 && entry >= 0 && entry < used; --steps) {
    const int64_t at = 3 + buckets + entry * kEntrySize;
    uint64_t key = 0;
    if (!read(word_at(at), &key, "an entry's key")) return r;
    if (key == als) {
      uint64_t value = 0;
      if (!read(word_at(at + 1), &value, "an entry's value")) return r;
      r.value = value;
      if (value == d.undefined_value) {
        r.status = WalkStatus::kDetached;
        return r;
      }
      if (!IsHeapObject(value)) return malformed("the store is not an object");
      const uint64_t wrapper = Untag(value);
      if (!read(wrapper + layout.label_set_slot_offset, &r.label_set, "the store's fields") ||
          !read(wrapper + layout.record_slot_offset, &r.record, "the store's fields")) {
        return r;
      }
      r.status = WalkStatus::kFound;
      return r;
    }
    uint64_t next = 0;
    if (!read(word_at(at + 2), &next, "an entry's chain")) return r;
    entry = IsSmi(next) ? SmiValue(next) : -1;
  }
  if (steps == 0 && used > kMaxChainEntries && entry >= 0 && entry < used) {
    return malformed("a bucket's chain is longer than 32 entries");
  }
  r.status = WalkStatus::kNotInFrame;
  return r;
}

const char* WalkStatusName(WalkStatus status) {
  switch (status) {
    case WalkStatus::kFound:
      return "found";
    case WalkStatus::kGateClosed:
      return "gate-closed";
    case WalkStatus::kNoFrame:
      return "no-frame";
    case WalkStatus::kNotInFrame:
      return "not-in-frame";
    case WalkStatus::kDetached:
      return "detached";
    case WalkStatus::kMalformed:
      return "malformed";
    case WalkStatus::kUnreadable:
      break;
  }
  return "unreadable";
}

}  // namespace customlabels::core
