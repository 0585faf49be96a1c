// How much of a target's label set the reader copies. Everything a target
// publishes is untrusted (lengths up to 2^64, counts of billions, gigabyte
// values that are really mapped), so every read is capped; what a cap cut is
// reported, never silently dropped.
#ifndef CUSTOMLABELS_READER_READ_LIMITS_H_
#define CUSTOMLABELS_READER_READ_LIMITS_H_

#include <cstdint>

namespace customlabels::reader {

struct ReadLimits {
  // Labels read from storage[] (null-key labels included).
  uint64_t max_labels = 1024;
  // Bytes copied of one key, and of one value.
  uint64_t max_key_bytes = 1024;
  uint64_t max_value_bytes = 64 * 1024;
  // Bytes of keys and values copied from one set (one thread): the label
  // that reaches it is cut, and no later label is read.
  uint64_t max_set_bytes = 1024 * 1024;
};

// Which limit cut something (bit flags).
enum Limit : unsigned {
  kLimitNone = 0,
  kLimitLabels = 1u << 0,
  kLimitKeyBytes = 1u << 1,
  kLimitValueBytes = 1u << 2,
  kLimitSetBytes = 1u << 3,
};

// The command-line flag that raises `limit` (one bit), e.g. "--max-labels".
inline const char* LimitFlag(Limit limit) {
  switch (limit) {
    case kLimitLabels:
      return "--max-labels";
    case kLimitKeyBytes:
      return "--max-key-bytes";
    case kLimitValueBytes:
      return "--max-value-bytes";
    case kLimitSetBytes:
      return "--max-set-bytes";
    default:
      return "";
  }
}

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_READ_LIMITS_H_
