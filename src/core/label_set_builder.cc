#include "label_set_builder.h"

#include <cstdint>
#include <cstring>
#include <unordered_set>

namespace customlabels::core {

static_assert(LabelSetLayout::kSelfOffset == kParcaSetOffset);
static_assert(LabelSetLayout::kTokenOffset == kParcaTokenOffset);

namespace {

// Linear search is faster than hashing for the handful of labels a request
// carries; the index is built only for large sets.
constexpr size_t kIndexThreshold = 16;

std::string_view View(const custom_labels_string_t& s) {
  return {reinterpret_cast<const char*>(s.buf), s.len};
}

bool InBuffer(uintptr_t base, size_t size, const custom_labels_string_t& s) {
  const auto p = reinterpret_cast<uintptr_t>(s.buf);
  return s.buf != nullptr && p >= base && p - base <= size && s.len <= size - (p - base);
}

}  // namespace

void LabelSetBuilder::Reset(const custom_labels_labelset_t* parent) {
  entries_.clear();
  index_.clear();
  live_ = 0;
  if (parent == nullptr || parent->storage == nullptr) return;
  entries_.reserve(parent->count);
  for (size_t i = 0; i < parent->count; ++i) {
    const custom_labels_label_t& label = parent->storage[i];
    if (label.key.buf == nullptr || label.value.buf == nullptr) continue;
    const std::string_view key = View(label.key);
    if (Find(key) != entries_.size()) continue;  // the first of a key wins
    entries_.push_back({key, View(label.value), true});
    ++live_;
  }
}

size_t LabelSetBuilder::Find(std::string_view key) {
  if (entries_.size() < kIndexThreshold) {
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].key == key) return i;
    }
    return entries_.size();
  }
  if (index_.size() != entries_.size()) {
    for (size_t i = index_.size(); i < entries_.size(); ++i) {
      index_.emplace(entries_[i].key, i);
    }
  }
  const auto it = index_.find(key);
  return it == index_.end() ? entries_.size() : it->second;
}

void LabelSetBuilder::Set(std::string_view key, std::string_view value) {
  const size_t i = Find(key);
  if (i == entries_.size()) {
    entries_.push_back({key, value, true});
    ++live_;
    return;
  }
  if (!entries_[i].live) ++live_;
  entries_[i].value = value;
  entries_[i].live = true;
}

void LabelSetBuilder::Remove(std::string_view key) {
  const size_t i = Find(key);
  if (i == entries_.size() || !entries_[i].live) return;
  entries_[i].live = false;
  --live_;
}

size_t LabelSetBuilder::RequiredBytes() const {
  size_t bytes = LabelSetLayout::kLabelsOffset + live_ * sizeof(custom_labels_label_t);
  for (const Entry& e : entries_) {
    if (e.live) bytes += e.key.size() + e.value.size();
  }
  return bytes;
}

custom_labels_labelset_t* LabelSetBuilder::WriteTo(void* buffer, size_t size) const {
  if (buffer == nullptr || reinterpret_cast<uintptr_t>(buffer) % 8 != 0 || size < RequiredBytes()) {
    return nullptr;
  }
  auto* base = static_cast<unsigned char*>(buffer);
  auto* labels = reinterpret_cast<custom_labels_label_t*>(base + LabelSetLayout::kLabelsOffset);
  unsigned char* bytes = base + LabelSetLayout::kLabelsOffset + live_ * sizeof(*labels);
  // Empty keys and values still get a non-null pointer into the buffer.
  auto copy = [&bytes](std::string_view s) {
    custom_labels_string_t out{s.size(), bytes};
    if (!s.empty()) std::memcpy(bytes, s.data(), s.size());
    bytes += s.size();
    return out;
  };
  size_t n = 0;
  for (const Entry& e : entries_) {
    if (!e.live) continue;
    labels[n].key = copy(e.key);
    labels[n].value = copy(e.value);
    ++n;
  }
  auto* header = reinterpret_cast<custom_labels_labelset_t*>(base);
  header->storage = labels;
  header->count = n;
  header->capacity = n;
  const unsigned long long self = reinterpret_cast<uintptr_t>(base);
  const unsigned long long token = LabelSetLayout::kToken;
  std::memcpy(base + LabelSetLayout::kSelfOffset, &self, sizeof(self));
  std::memcpy(base + LabelSetLayout::kTokenOffset, &token, sizeof(token));
  LabelSetLayout::SetRecord(header, nullptr);
  return header;
}

const custom_labels_labelset_t* LabelSetLayout::Validate(const void* buffer, size_t size) {
  const auto base = reinterpret_cast<uintptr_t>(buffer);
  if (buffer == nullptr || base % 8 != 0 || size < kLabelsOffset) {
    return nullptr;
  }
  unsigned long long self = 0, token = 0;
  std::memcpy(&self, static_cast<const unsigned char*>(buffer) + kSelfOffset, sizeof(self));
  std::memcpy(&token, static_cast<const unsigned char*>(buffer) + kTokenOffset, sizeof(token));
  const auto* set = static_cast<const custom_labels_labelset_t*>(buffer);
  if (token != kToken || self != base || reinterpret_cast<uintptr_t>(set->storage) != base + kLabelsOffset ||
      set->count != set->capacity ||
      set->count > (size - kLabelsOffset) / sizeof(custom_labels_label_t)) {
    return nullptr;
  }
  for (size_t i = 0; i < set->count; ++i) {
    if (!InBuffer(base, size, set->storage[i].key) ||
        !InBuffer(base, size, set->storage[i].value)) {
      return nullptr;
    }
  }
  const auto record = reinterpret_cast<uintptr_t>(RecordOf(set));
  if (record != 0) {
    constexpr size_t kHeader = ThreadContextLimits::kHeaderBytes;
    if (record % ThreadContextLimits::kAlignment != 0 || record < base || record - base > size ||
        size - (record - base) < kHeader) {
      return nullptr;
    }
    uint16_t attrs = 0;
    std::memcpy(&attrs, reinterpret_cast<const unsigned char*>(record) + kHeader - sizeof(attrs),
                sizeof(attrs));
    if (size - (record - base) - kHeader < attrs) return nullptr;
  }
  return set;
}

const otel_thread_ctx_record_t* LabelSetLayout::RecordOf(const custom_labels_labelset_t* set) {
  const otel_thread_ctx_record_t* record = nullptr;
  std::memcpy(&record, reinterpret_cast<const unsigned char*>(set) + kRecordOffset, sizeof(record));
  return record;
}

void LabelSetLayout::SetRecord(custom_labels_labelset_t* set,
                               const otel_thread_ctx_record_t* record) {
  std::memcpy(reinterpret_cast<unsigned char*>(set) + kRecordOffset, &record, sizeof(record));
}

std::vector<std::pair<std::string_view, std::string_view>> ReadLabelSet(
    const custom_labels_labelset_t* set) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  if (set == nullptr || set->storage == nullptr) return out;
  out.reserve(set->count);
  std::unordered_set<std::string_view> seen;
  const bool hashed = set->count >= kIndexThreshold;
  for (size_t i = 0; i < set->count; ++i) {
    const custom_labels_label_t& label = set->storage[i];
    // Ignored labels (null key, or null value) do not claim their key.
    if (label.key.buf == nullptr || label.value.buf == nullptr) continue;
    const std::string_view key = View(label.key);
    bool duplicate = false;
    if (hashed) {
      duplicate = !seen.insert(key).second;
    } else {
      for (const auto& kv : out) duplicate = duplicate || kv.first == key;
    }
    if (!duplicate) out.emplace_back(key, View(label.value));
  }
  return out;
}

}  // namespace customlabels::core
