// The process's one OTEP 4719 process context, shared by every thread
// (main and workers) that loads the addon: the attribute key map thread
// context records refer to, the resource attributes, and their publication.
// Process-wide by nature (the OTEP allows one context per process), so a
// mutex-guarded singleton rather than per-environment state.
#ifndef CUSTOMLABELS_CORE_PROCESS_CONTEXT_H_
#define CUSTOMLABELS_CORE_PROCESS_CONTEXT_H_

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attribute_key_map.h"
#include "node_context.h"
#include "process_context_mapping.h"

namespace customlabels::core {

class ProcessContext final {
 public:
  enum class State {
    kUnpublished,  // no thread context was needed yet
    kPublished,
    kOtherPublisher,  // another OTEL_CTX mapping exists: we publish nothing
    kFailed,          // the mapping could not be created
  };
  struct Status {
    State state = State::kUnpublished;
    ProcessContextMapping::Kind kind = ProcessContextMapping::Kind::kNone;
    size_t keys = 0;
    size_t payload_bytes = 0;
    const ProcessContextHeader* header = nullptr;
  };

  static ProcessContext& Global();

  ProcessContext() = default;
  ProcessContext(const ProcessContext&) = delete;
  ProcessContext& operator=(const ProcessContext&) = delete;

  // Publishes the context if it was not yet; whether records may be used.
  bool EnsurePublished();
  // The index of `key`, appended and republished first if new (records must
  // not use an index readers cannot resolve yet); -1 if unmapped or the
  // context is not published.
  int KeyIndex(std::string_view key);
  // Replaces the resource attributes (republishing if published). Pairs
  // beyond kMaxResourceBytes (keys, values and framing) are left out; false
  // if the republication failed (the previous attributes stay).
  bool SetResource(std::vector<std::pair<std::string, std::string>> attributes);
  // Switches the schema to `nodejs_v1_dev` with `layout` (a thread runs
  // without hooks, so TLS pointers no longer tell every thread's context);
  // republishes if published. There is no way back: readers never see a
  // process switch from the walk to TLS pointers. False if republication
  // failed (the previous schema stays).
  bool UseNodeSchema(const NodeLayout& layout);
  bool node_schema();
  Status status();

  static constexpr size_t kMaxResourceBytes = 16384;
  static constexpr size_t kPairOverheadBytes = 12;

 private:
  bool PublishLocked();

  std::mutex mu_;
  State state_ = State::kUnpublished;
  AttributeKeyMap keys_;
  std::vector<std::pair<std::string, std::string>> resource_;
  bool node_schema_ = false;
  NodeLayout node_layout_;
  ProcessContextMapping mapping_;
};

// A thread's cache in front of ProcessContext::Global(): indexes never
// change once given, so hits take no lock.
class CachedProcessKeys final : public AttributeKeys {
 public:
  int IndexOf(std::string_view key) override;
  // Publishes the process context on first use.
  bool Available() override;

  static constexpr size_t kMaxCached = 1024;

 private:
  // The first keys seen, searched linearly (a request's handful of keys
  // compare faster than they hash), then the rest in a map.
  static constexpr size_t kLinear = 16;
  std::vector<std::pair<std::string, int>> first_;
  std::unordered_map<std::string, int> cache_;
  int available_ = -1;  // unknown
};

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_PROCESS_CONTEXT_H_
