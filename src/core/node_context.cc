#include "node_context.h"

#include <atomic>

#include "node_mirrors.h"

extern "C" {
__attribute__((used)) __thread otel_thread_ctx_nodejs_v1_t otel_thread_ctx_nodejs_v1 = {};
__attribute__((used)) __thread const uint64_t* custom_labels_als_handle = nullptr;
__attribute__((used)) __thread int32_t custom_labels_als_identity_hash = 0;
}

namespace customlabels::core {

namespace {

// Volatile stores after a signal fence: readers interrupt this very thread,
// so ordering against the compiler is all that is needed.
template <typename T>
void Store(T* field, T value) noexcept {
  std::atomic_signal_fence(std::memory_order_release);
  *static_cast<volatile T*>(field) = value;
  std::atomic_signal_fence(std::memory_order_release);
}

template <typename T>
T Load(const T* field) noexcept {
  return *static_cast<const volatile T*>(field);
}

const uint64_t* Pointer(uint64_t address) noexcept {
  return reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(address));
}

}  // namespace

void WriteDiscoveryStruct(otel_thread_ctx_nodejs_v1_t* to, const otel_thread_ctx_nodejs_v1_t& from) noexcept {
  EraseDiscoveryStruct(to);
  Store(&to->als_handle, from.als_handle);
  Store(&to->als_identity_hash, from.als_identity_hash);
  Store(&to->record_slot_offset, from.record_slot_offset);
  Store(&to->undefined_addr, from.undefined_addr);
  // The gate last: a reader sees zero, or everything above.
  Store(&to->cped_slot, from.cped_slot);
}

void EraseDiscoveryStruct(otel_thread_ctx_nodejs_v1_t* to) noexcept {
  // The gate first.
  Store(&to->cped_slot, static_cast<const uint64_t*>(nullptr));
  Store(&to->als_handle, static_cast<const uint64_t*>(nullptr));
  Store(&to->als_identity_hash, 0);
  Store(&to->record_slot_offset, uint8_t{0});
  Store(&to->undefined_addr, uint64_t{0});
}

void PublishNodeDiscovery(const NodeDiscovery& d) noexcept {
  ClearNodeDiscovery();
  otel_thread_ctx_nodejs_v1_t s = {};
  s.cped_slot = Pointer(d.cped_slot);
  s.als_handle = Pointer(d.als_handle);
  s.als_identity_hash = d.als_identity_hash;
  s.record_slot_offset = static_cast<uint8_t>(d.record_slot_offset);
  s.undefined_addr = d.undefined_value;
  Store(&custom_labels_als_identity_hash, d.als_identity_hash);
  // The Parca agent's gate, then the design doc's.
  Store(&custom_labels_als_handle, Pointer(d.als_handle));
  WriteDiscoveryStruct(&otel_thread_ctx_nodejs_v1, s);
  MirrorNodeDiscovery(s);
}

void ClearNodeDiscovery() noexcept {
  otel_thread_ctx_nodejs_v1_t& s = otel_thread_ctx_nodejs_v1;
  if (Load(&s.cped_slot) != nullptr) {
    const otel_thread_ctx_nodejs_v1_t ours = {Load(&s.cped_slot), Load(&s.als_handle), Load(&s.als_identity_hash),
                                              Load(&s.record_slot_offset), {0, 0, 0}, Load(&s.undefined_addr)};
    ClearNodeMirrors(ours);
  }
  // The gates first.
  EraseDiscoveryStruct(&s);
  Store(&custom_labels_als_handle, static_cast<const uint64_t*>(nullptr));
  Store(&custom_labels_als_identity_hash, 0);
}

namespace {
std::atomic<int> hooks_default{-1};
}  // namespace

void SetHooksDefault(bool on) noexcept { hooks_default.store(on ? 1 : 0); }
int HooksDefault() noexcept { return hooks_default.load(); }

NodeDiscovery LoadNodeDiscovery() noexcept {
  const otel_thread_ctx_nodejs_v1_t& s = otel_thread_ctx_nodejs_v1;
  NodeDiscovery d;
  d.cped_slot = reinterpret_cast<uintptr_t>(Load(&s.cped_slot));
  d.als_handle = reinterpret_cast<uintptr_t>(Load(&s.als_handle));
  d.als_identity_hash = Load(&s.als_identity_hash);
  d.record_slot_offset = Load(&s.record_slot_offset);
  d.undefined_value = Load(&s.undefined_addr);
  return d;
}

}  // namespace customlabels::core
