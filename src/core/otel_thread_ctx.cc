#include "otel_thread_ctx.h"

#include <atomic>

extern "C" {
__attribute__((used)) __thread const otel_thread_ctx_record_t* otel_thread_ctx_v1 = nullptr;
}

namespace customlabels::core {

void PublishThreadContext(const otel_thread_ctx_record_t* record) noexcept {
  std::atomic_signal_fence(std::memory_order_release);
  __atomic_store_n(&otel_thread_ctx_v1, record, __ATOMIC_RELAXED);
}

const otel_thread_ctx_record_t* LoadThreadContext() noexcept {
  return __atomic_load_n(&otel_thread_ctx_v1, __ATOMIC_RELAXED);
}

const otel_thread_ctx_record_t** ThreadContextSlot() noexcept { return &otel_thread_ctx_v1; }

}  // namespace customlabels::core
