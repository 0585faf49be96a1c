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
#elif defined(__GLIBC__)
#error "bind dlopen, dlsym and dlclose by this architecture's first glibc version"
#endif
#ifdef CUSTOMLABELS_DL_VERSION
__asm__(".symver dlopen,dlopen@" CUSTOMLABELS_DL_VERSION);
__asm__(".symver dlsym,dlsym@" CUSTOMLABELS_DL_VERSION);
__asm__(".symver dlclose,dlclose@" CUSTOMLABELS_DL_VERSION);
#endif

namespace customlabels::core {

namespace {

constexpr const char* kSymbol = "otel_thread_ctx_nodejs_v1";
// The Itanium C++ ABI's TLS init function of a thread_local of that name.
constexpr const char* kInitSymbol = "_ZTH25otel_thread_ctx_nodejs_v1";

std::mutex& Mu() {
  static std::mutex mu;
  return mu;
}

std::vector<std::string>& Paths() {
  static std::vector<std::string> paths;
  return paths;
}

// The calling thread's copy in the module loaded from `path`, or nullptr
// (not loaded, no such symbol, or ours); *unsafe where the copy is a C++
// thread_local with an init function (node_mirrors.h). dlsym resolves a TLS
// symbol to the calling thread's instance; RTLD_NOLOAD never loads
// anything. The handle stays open while the copy is used (Copy's life).
class Copy final {
 public:
  explicit Copy(const std::string& path) noexcept : handle_(dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
    if (handle_ == nullptr) return;
    void* symbol = dlsym(handle_, kSymbol);
    if (symbol == nullptr || symbol == &otel_thread_ctx_nodejs_v1) return;
    unsafe_ = dlsym(handle_, kInitSymbol) != nullptr;
    copy_ = static_cast<otel_thread_ctx_nodejs_v1_t*>(symbol);
  }
  ~Copy() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  Copy(const Copy&) = delete;
  Copy& operator=(const Copy&) = delete;
  // The copy customlabels may write, or nullptr.
  otel_thread_ctx_nodejs_v1_t* writable() const noexcept { return unsafe_ ? nullptr : copy_; }
  bool found() const noexcept { return copy_ != nullptr; }
  bool unsafe() const noexcept { return unsafe_; }
  const otel_thread_ctx_nodejs_v1_t* get() const noexcept { return copy_; }

 private:
  void* handle_;
  otel_thread_ctx_nodejs_v1_t* copy_ = nullptr;
  bool unsafe_ = false;
};

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
    case MirrorState::kUnsafe:
      return "unsafe";
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
  const Copy copy(path);
  if (!copy.found()) return MirrorState::kAbsent;
  // (Reading one is safe; only writing is not.)
  if (copy.unsafe()) return Zero(Snapshot(copy.get())) ? MirrorState::kUnsafe : MirrorState::kClaimed;
  {
    // Process-wide, as modules are: every thread's later publication
    // mirrors into the modules any thread found.
    std::lock_guard<std::mutex> lock(Mu());
    bool known = false;
    for (const std::string& p : Paths()) known = known || p == path;
    if (!known) Paths().push_back(path);
  }
  if (ours.cped_slot == nullptr) return MirrorStateOf(copy.get(), ours);
  return MirrorInto(copy.writable(), ours);
}

// (Lock order: Mu(), then the loader's lock inside dlopen; nothing takes
// them the other way round.)
void MirrorNodeDiscovery(const otel_thread_ctx_nodejs_v1_t& ours) noexcept {
  std::lock_guard<std::mutex> lock(Mu());
  for (const std::string& path : Paths()) {
    const Copy copy(path);
    MirrorInto(copy.writable(), ours);
  }
}

void ClearNodeMirrors(const otel_thread_ctx_nodejs_v1_t& ours) noexcept {
  std::lock_guard<std::mutex> lock(Mu());
  for (const std::string& path : Paths()) {
    const Copy copy(path);
    otel_thread_ctx_nodejs_v1_t* to = copy.writable();
    if (to != nullptr && Same(Snapshot(to), ours)) EraseDiscoveryStruct(to);
  }
}

}  // namespace customlabels::core
