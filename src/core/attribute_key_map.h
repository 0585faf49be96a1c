// The thread context's attribute key map (OTEP 4947): the names records
// refer to by a u8 index, published in the process context as
// `threadlocal.attribute_key_map`. Append-only: an index, once given, names
// the same key for the life of the process.
#ifndef CUSTOMLABELS_CORE_ATTRIBUTE_KEY_MAP_H_
#define CUSTOMLABELS_CORE_ATTRIBUTE_KEY_MAP_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace customlabels::core {

// Where the record builder gets a label key's index from.
class AttributeKeys {
 public:
  virtual ~AttributeKeys() = default;
  // The index of `key`, appending it to the map if it is new and may be
  // mapped; -1 if it is not (and will never be) in the map.
  virtual int IndexOf(std::string_view key) = 0;
  // Whether records may be built at all (readers can resolve the indexes).
  virtual bool Available() { return true; }
};

// Not thread-safe by itself: ProcessContext serializes access.
class AttributeKeyMap final {
 public:
  // Limits: the OTEP's 256 indexes; a key of at most kMaxKeyBytes bytes; all
  // keys together at most kMaxTotalBytes, so that the process context's
  // payload stays far below the 64 KiB readers accept.
  static constexpr size_t kMaxKeys = 256;
  static constexpr size_t kMaxKeyBytes = 255;
  static constexpr size_t kMaxTotalBytes = 32768;

  // The index of `key`, or -1 if it is not in the map.
  int Find(std::string_view key) const;
  // Find(), appending `key` first if it is new and may be mapped (non-empty
  // UTF-8 within the limits, room left); `*appended` says whether it was.
  int FindOrAppend(std::string_view key, bool* appended);

  // Takes back the key appended last (its publication failed).
  void RemoveLast();

  const std::vector<std::string>& keys() const { return keys_; }

 private:
  std::vector<std::string> keys_;
  std::unordered_map<std::string, int> index_;
  size_t total_bytes_ = 0;
};

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_ATTRIBUTE_KEY_MAP_H_
