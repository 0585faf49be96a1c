#include "node_mirrors.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <vector>

// glibc 2.34 moved dlopen, dlsym and dlclose into libc under GLIBC_2.34;
// the addon must need nothing past the floor of the Node.js binaries it
// loads in (GLIBC_2.28, src/binding/libstdcxx_compat.cc), so it binds them
// by their first versions, which every glibc keeps (libc itself from 2.34,
// before that libdl.so.2, which every official Node.js binary links).
#if defined(__GLIBC__) && defined(__x86_64__)
#define CUSTOMLABELS_DL_VERSION "GLIBC_2.2.5"
#elif defined(__GLIBC__) && defined(__aarch64__)
#define CUSTOMLABELS_DL_VERSION "GLIBC_2.17"
#endif
#ifdef CUSTOMLABELS_DL_VERSION
__asm__(".symver dlopen,dlopen@" CUSTOMLABELS_DL_VERSION);
__asm__(".symver dlsym,dlsym@" CUSTOMLABELS_DL_VERSION);
__asm__(".symver dlclose,dlclose@" CUSTOMLABELS_DL_VERSION);
#endif

namespace customlabels::core {

namespace {

constexpr const char* kSymbol = "otel_thread_ctx_nodejs_v1";

std::mutex& Mu() {
  static std::mutex mu;
  return mu;
}

std::vector<std::string>& Paths() {
  static std::vector<std::string> paths;
  return paths;
}

// The calling thread's copy in the module loaded from `path`, or nullptr
// (not loaded, no such symbol, or ours). dlsym resolves a TLS symbol to the
// calling thread's instance; RTLD_NOLOAD never loads anything.
otel_thread_ctx_nodejs_v1_t* CopyIn(const std::string& path) noexcept {
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  void* symbol = dlsym(handle, kSymbol);
  dlclose(handle);
  if (symbol == nullptr || symbol == &otel_thread_ctx_nodejs_v1) return nullptr;
  return static_cast<otel_thread_ctx_nodejs_v1_t*>(symbol);
}

bool Same(const otel_thread_ctx_nodejs_v1_t& a, const otel_thread_ctx_nodejs_v1_t& b) noexcept {
  return a.cped_slot == b.cped_slot && a.als_handle == b.als_handle &&
         a.als_identity_hash == b.als_identity_hash &&
         a.record_slot_offset == b.record_slot_offset && a.undefined_addr == b.undefined_addr;
}

bool Zero(const otel_thread_ctx_nodejs_v1_t& a) noexcept {
  static const otel_thread_ctx_nodejs_v1_t zero = {};
  return std::memcmp(&a, &zero, sizeof(a)) == 0;
}

otel_thread_ctx_nodejs_v1_t Snapshot(const otel_thread_ctx_nodejs_v1_t* copy) noexcept {
  otel_thread_ctx_nodejs_v1_t out;
  std::memcpy(&out, copy, sizeof(out));
  return out;
}

MirrorState MirrorInto(otel_thread_ctx_nodejs_v1_t* copy,
                       const otel_thread_ctx_nodejs_v1_t& ours) noexcept {
  if (copy == nullptr) return MirrorState::kAbsent;
  const otel_thread_ctx_nodejs_v1_t now = Snapshot(copy);
  if (Same(now, ours)) return MirrorState::kMirrored;
  if (!Zero(now)) return MirrorState::kClaimed;
  WriteDiscoveryStruct(copy, ours);
  return MirrorState::kMirrored;
}

}  // namespace

const char* MirrorStateName(MirrorState s) noexcept {
  switch (s) {
    case MirrorState::kMirrored:
      return "mirrored";
    case MirrorState::kClaimed:
      return "claimed";
    case MirrorState::kAbsent:
      break;
  }
  return "absent";
}

MirrorState MirrorStateOf(const otel_thread_ctx_nodejs_v1_t* copy,
                          const otel_thread_ctx_nodejs_v1_t& ours) noexcept {
  if (copy == nullptr) return MirrorState::kAbsent;
  const otel_thread_ctx_nodejs_v1_t now = Snapshot(copy);
  if (ours.cped_slot != nullptr && Same(now, ours)) return MirrorState::kMirrored;
  return Zero(now) ? MirrorState::kAbsent : MirrorState::kClaimed;
}

MirrorState AddNodeMirror(const std::string& path, const otel_thread_ctx_nodejs_v1_t& ours) {
  otel_thread_ctx_nodejs_v1_t* copy = CopyIn(path);
  if (copy == nullptr) return MirrorState::kAbsent;
  {
    std::lock_guard<std::mutex> lock(Mu());
    bool known = false;
    for (const std::string& p : Paths()) known = known || p == path;
    if (!known) Paths().push_back(path);
  }
  if (ours.cped_slot == nullptr) return MirrorStateOf(copy, ours);
  return MirrorInto(copy, ours);
}

void MirrorNodeDiscovery(const otel_thread_ctx_nodejs_v1_t& ours) noexcept {
  std::lock_guard<std::mutex> lock(Mu());
  for (const std::string& path : Paths()) MirrorInto(CopyIn(path), ours);
}

void ClearNodeMirrors(const otel_thread_ctx_nodejs_v1_t& ours) noexcept {
  std::lock_guard<std::mutex> lock(Mu());
  for (const std::string& path : Paths()) {
    otel_thread_ctx_nodejs_v1_t* copy = CopyIn(path);
    if (copy != nullptr && Same(Snapshot(copy), ours)) EraseDiscoveryStruct(copy);
  }
}

}  // namespace customlabels::core
