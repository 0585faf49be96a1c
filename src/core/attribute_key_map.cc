#include "attribute_key_map.h"

#include "thread_context_record.h"

namespace customlabels::core {

int AttributeKeyMap::Find(std::string_view key) const {
  const auto it = index_.find(std::string(key));
  return it == index_.end() ? -1 : it->second;
}

int AttributeKeyMap::FindOrAppend(std::string_view key, bool* appended) {
  *appended = false;
  const int found = Find(key);
  if (found >= 0) return found;
  // Readers reject a map holding an empty string, and drop values (so,
  // presumably, keys) that are not UTF-8.
  if (key.empty() || key.size() > kMaxKeyBytes || keys_.size() >= kMaxKeys ||
      key.size() > kMaxTotalBytes - total_bytes_ || !IsUtf8(key)) {
    return -1;
  }
  const int index = static_cast<int>(keys_.size());
  keys_.emplace_back(key);
  try {
    index_.emplace(keys_.back(), index);
  } catch (...) {
    keys_.pop_back();  // out of memory: the map stays as it was
    throw;
  }
  total_bytes_ += key.size();
  *appended = true;
  return index;
}

void AttributeKeyMap::RemoveLast() {
  if (keys_.empty()) return;
  index_.erase(keys_.back());
  total_bytes_ -= keys_.back().size();
  keys_.pop_back();
}

}  // namespace customlabels::core
