// Builds immutable, compact label sets in the Custom Label ABI v1 layout.
#ifndef CUSTOMLABELS_CORE_LABEL_SET_BUILDER_H_
#define CUSTOMLABELS_CORE_LABEL_SET_BUILDER_H_

#include <cstddef>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "abi.h"
#include "node_context.h"
#include "otel_thread_ctx.h"

namespace customlabels::core {

// Collects a parent set plus updates, then writes the merged set into a
// buffer the caller provides.
//
// Ownership: the builder owns nothing it is given. Views passed to Reset(),
// Set() and Remove() must stay valid until WriteTo() returns. WriteTo()
// copies every byte it needs into the caller's buffer, so the written set
// depends on that buffer alone and lives exactly as long as it: the caller
// frees the buffer (for the addon: V8's garbage collector frees the
// ArrayBuffer) once no thread's `custom_labels_current_set` can point to it.
//
// The written set is compact: `count` labels, unique non-null keys,
// `capacity == count`, parent labels first in their order, then new keys in
// the order they were first set.
class LabelSetBuilder final {
 public:
  LabelSetBuilder() = default;
  LabelSetBuilder(const LabelSetBuilder&) = delete;
  LabelSetBuilder& operator=(const LabelSetBuilder&) = delete;

  // Starts over from `parent`'s labels (nullptr: no labels). Reads the parent
  // with reader semantics: null keys skipped, the first of a key wins.
  void Reset(const custom_labels_labelset_t* parent);
  // Sets `key` to `value`; a later Set of the same key wins.
  void Set(std::string_view key, std::string_view value);
  // Removes `key` if present.
  void Remove(std::string_view key);

  // Number of labels the written set will hold.
  size_t count() const { return live_; }
  // Calls f(key, value) for each label the written set will hold, in order.
  template <typename F>
  void ForEach(F&& f) const {
    for (const Entry& e : entries_) {
      if (e.live) f(e.key, e.value);
    }
  }
  // Bytes WriteTo() needs.
  size_t RequiredBytes() const;
  // Writes the set into `buffer` (8-byte aligned, at least RequiredBytes()
  // long) and returns its header, which sits at the start of the buffer.
  // Returns nullptr if the buffer is misaligned or too small.
  custom_labels_labelset_t* WriteTo(void* buffer, size_t size) const;

 private:
  struct Entry {
    std::string_view key;
    std::string_view value;
    bool live;
  };
  // Index of `key` in entries_, or entries_.size().
  size_t Find(std::string_view key);

  std::vector<Entry> entries_;
  std::unordered_map<std::string_view, size_t> index_;
  size_t live_ = 0;
};

// Layout of a set written by LabelSetBuilder: header, the set's own address,
// a token, the address of the set's thread context record (otel_thread_ctx.h;
// 0 if it has none), the label array, then the key and value bytes. Readers
// of the ABI only follow `storage`. The address and the token are where the
// Parca agent's Node walk looks for them from the pointer in a wrapper's
// internal field 0 (node_context.h): that pointer is the set itself.
struct LabelSetLayout final {
  static constexpr size_t kSelfOffset = sizeof(custom_labels_labelset_t);
  static constexpr size_t kTokenOffset = kSelfOffset + 8;
  static constexpr size_t kRecordOffset = kTokenOffset + 8;
  static constexpr size_t kLabelsOffset = kRecordOffset + 8;
  static constexpr unsigned long long kToken = kParcaToken;

  // Returns the set at the start of `buffer` if it is a well-formed set
  // written by LabelSetBuilder whose pointers (its record's included) all
  // stay inside the buffer.
  static const custom_labels_labelset_t* Validate(const void* buffer, size_t size);

  // The record of a set written by LabelSetBuilder, or nullptr.
  static const otel_thread_ctx_record_t* RecordOf(const custom_labels_labelset_t* set);
  // Sets it; only before the set is published.
  static void SetRecord(custom_labels_labelset_t* set, const otel_thread_ctx_record_t* record);
};

// A label set as an external reader sees it (the spec, as this project reads
// it): a label with a null key.buf is ignored; so is one whose key is set but
// whose value.buf is null ("val.buf must never be null"); an ignored label
// does not claim its key, and of the rest the first label of a key wins.
// src/reader decodes sets by the same rules; test/cpp/label_set_cases.h
// holds the cases both are tested with.
std::vector<std::pair<std::string_view, std::string_view>> ReadLabelSet(
    const custom_labels_labelset_t* set);

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_LABEL_SET_BUILDER_H_
