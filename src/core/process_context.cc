#include "process_context.h"

#include "process_context_payload.h"

namespace customlabels::core {

ProcessContext& ProcessContext::Global() {
  // Never destroyed: threads may still use it while the process exits.
  static ProcessContext* const context = new ProcessContext();
  return *context;
}

bool ProcessContext::PublishLocked() {
  ProcessContextContents contents;
  contents.resource = resource_;
  contents.attribute_keys = keys_.keys();
  contents.node_schema = node_schema_;
  contents.node_layout = node_layout_;
  return mapping_.Publish(EncodeProcessContext(contents));
}

bool ProcessContext::EnsurePublished() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::kUnpublished) {
    if (ProcessContextMapping::OtherPublisherPresent()) {
      state_ = State::kOtherPublisher;
    } else {
      state_ = PublishLocked() ? State::kPublished : State::kFailed;
    }
  }
  return state_ == State::kPublished;
}

int ProcessContext::KeyIndex(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ != State::kPublished) return -1;
  bool appended = false;
  const int index = keys_.FindOrAppend(key, &appended);
  if (!appended) return index;
  // Not published, so not usable: no record may carry its index. Out of
  // memory while publishing, the key is taken back and the error goes on to
  // the build (BuildFromScratch reports it), so a later build may map it.
  bool published = false;
  try {
    published = PublishLocked();
  } catch (...) {
    keys_.RemoveLast();
    throw;
  }
  if (!published) {
    keys_.RemoveLast();
    return -1;
  }
  return index;
}

bool ProcessContext::SetResource(std::vector<std::pair<std::string, std::string>> attributes) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, std::string>> kept;
  size_t bytes = 0;
  for (auto& kv : attributes) {
    // Key, value and a few bytes of protobuf framing per pair.
    const size_t size = kv.first.size() + kv.second.size() + kPairOverheadBytes;
    if (kv.first.empty() || size > kMaxResourceBytes - bytes) continue;
    bytes += size;
    kept.push_back(std::move(kv));
  }
  kept.swap(resource_);
  if (state_ == State::kPublished && !PublishLocked()) {
    resource_.swap(kept);  // the published context keeps the previous ones
    return false;
  }
  return true;
}

bool ProcessContext::UseNodeSchema(const NodeLayout& layout) {
  std::lock_guard<std::mutex> lock(mu_);
  if (node_schema_) return true;
  node_schema_ = true;
  node_layout_ = layout;
  if (state_ == State::kPublished && !PublishLocked()) {
    node_schema_ = false;
    return false;
  }
  return true;
}

bool ProcessContext::node_schema() {
  std::lock_guard<std::mutex> lock(mu_);
  return node_schema_;
}

ProcessContext::Status ProcessContext::status() {
  std::lock_guard<std::mutex> lock(mu_);
  return {state_, mapping_.kind(), keys_.keys().size(), mapping_.payload().size(),
          mapping_.header()};
}

bool CachedProcessKeys::Available() {
  if (available_ < 0) available_ = ProcessContext::Global().EnsurePublished() ? 1 : 0;
  return available_ == 1;
}

int CachedProcessKeys::IndexOf(std::string_view key) {
  for (const auto& [k, index] : first_) {
    if (k == key) return index;
  }
  std::string k(key);
  if (first_.size() == kLinear) {
    const auto it = cache_.find(k);
    if (it != cache_.end()) return it->second;
  }
  // Called only once Available(): a key refused now is refused for good
  // (the map only grows).
  const int index = ProcessContext::Global().KeyIndex(key);
  // Bounded: past kMaxCached keys nothing more is cached, and a thread that
  // keeps making new keys takes the lock for each.
  if (first_.size() < kLinear) {
    first_.emplace_back(std::move(k), index);
  } else if (cache_.size() < kMaxCached) {
    cache_.emplace(std::move(k), index);
  }
  return index;
}

}  // namespace customlabels::core
