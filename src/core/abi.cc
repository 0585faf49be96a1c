#include "abi.h"

#include <atomic>

extern "C" {
__attribute__((used)) const uint32_t custom_labels_abi_version = 1;
__attribute__((used)) __thread const custom_labels_labelset_t* custom_labels_current_set = nullptr;
}

namespace customlabels::core {

static_assert(sizeof(void*) == 8, "the ABI is defined for 64-bit targets");
static_assert(sizeof(custom_labels_string_t) == 16);
static_assert(sizeof(custom_labels_label_t) == 32);
static_assert(sizeof(custom_labels_labelset_t) == 24);

void PublishCurrent(const custom_labels_labelset_t* set) noexcept {
  // Everything written into `set` happens before the pointer becomes visible
  // to a reader that interrupts this thread.
  std::atomic_signal_fence(std::memory_order_release);
  __atomic_store_n(&custom_labels_current_set, set, __ATOMIC_RELAXED);
}

const custom_labels_labelset_t* LoadCurrent() noexcept {
  return __atomic_load_n(&custom_labels_current_set, __ATOMIC_RELAXED);
}

const custom_labels_labelset_t** CurrentSlot() noexcept { return &custom_labels_current_set; }

}  // namespace customlabels::core
