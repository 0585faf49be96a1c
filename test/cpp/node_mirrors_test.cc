// Another module's otel_thread_ctx_nodejs_v1 (src/core/node_mirrors.h): a
// copy its module left empty carries customlabels' discovery on every
// thread that publishes one, and is cleared with it; a copy its module
// filled is never written. The other module is test/cpp/other_writer_module.c,
// dlopen()ed as Node.js loads addons.
#include "core/node_mirrors.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "core/node_context.h"

namespace customlabels::core {
namespace {

using Copy = const otel_thread_ctx_nodejs_v1_t* (*)();
using Claim = void (*)(uint64_t, uint64_t);

struct OtherWriter {
  void* handle = dlopen(CUSTOMLABELS_OTHER_WRITER_MODULE, RTLD_NOW | RTLD_LOCAL);
  Copy copy = handle ? reinterpret_cast<Copy>(dlsym(handle, "other_writer_copy")) : nullptr;
  Claim claim = handle ? reinterpret_cast<Claim>(dlsym(handle, "other_writer_claim")) : nullptr;
};

NodeDiscovery Discovery(uint64_t cped_slot) {
  NodeDiscovery d;
  d.cped_slot = cped_slot;
  d.als_handle = 0x2000;
  d.als_identity_hash = 7;
  d.undefined_value = 0x61;
  d.record_slot_offset = 40;
  return d;
}

bool IsZero(const otel_thread_ctx_nodejs_v1_t* s) {
  static const otel_thread_ctx_nodejs_v1_t zero = {};
  return std::memcmp(s, &zero, sizeof(zero)) == 0;
}

bool SameAsOurs(const otel_thread_ctx_nodejs_v1_t* s) {
  return std::memcmp(s, &otel_thread_ctx_nodejs_v1, sizeof(*s)) == 0;
}

TEST(NodeMirrors, AnEmptyCopyCarriesEachThreadsDiscoveryAndIsClearedWithIt) {
  OtherWriter other;
  ASSERT_NE(other.copy, nullptr) << dlerror();
  ClearNodeDiscovery();
  // Nothing published yet: the module is remembered, its copy untouched.
  EXPECT_EQ(AddNodeMirror(CUSTOMLABELS_OTHER_WRITER_MODULE, otel_thread_ctx_nodejs_v1),
            MirrorState::kAbsent);
  EXPECT_TRUE(IsZero(other.copy()));

  PublishNodeDiscovery(Discovery(0x1000));
  EXPECT_TRUE(SameAsOurs(other.copy()));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(other.copy()->cped_slot), 0x1000u);
  EXPECT_EQ(MirrorStateOf(other.copy(), otel_thread_ctx_nodejs_v1), MirrorState::kMirrored);

  // Another thread: its own copies, published and cleared there alone.
  std::thread([&] {
    EXPECT_TRUE(IsZero(other.copy()));
    PublishNodeDiscovery(Discovery(0x3000));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(other.copy()->cped_slot), 0x3000u);
    ClearNodeDiscovery();
    EXPECT_TRUE(IsZero(other.copy()));
  }).join();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(other.copy()->cped_slot), 0x1000u);

  // Republished: the copy follows; cleared: both are zero.
  PublishNodeDiscovery(Discovery(0x4000));
  EXPECT_TRUE(SameAsOurs(other.copy()));
  ClearNodeDiscovery();
  EXPECT_TRUE(IsZero(other.copy()));
  dlclose(other.handle);
}

TEST(NodeMirrors, ACopyItsModuleFilledIsNeverWritten) {
  OtherWriter other;
  ASSERT_NE(other.claim, nullptr) << dlerror();
  std::thread([&] {
    other.claim(0x1000, 0x9000);
    PublishNodeDiscovery(Discovery(0x1000));
    EXPECT_EQ(AddNodeMirror(CUSTOMLABELS_OTHER_WRITER_MODULE, otel_thread_ctx_nodejs_v1),
              MirrorState::kClaimed);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(other.copy()->als_handle), 0x9000u);
    EXPECT_EQ(other.copy()->als_identity_hash, 99);
    EXPECT_EQ(MirrorStateOf(other.copy(), otel_thread_ctx_nodejs_v1), MirrorState::kClaimed);
    // Cleared: ours goes, theirs stays.
    ClearNodeDiscovery();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(other.copy()->als_handle), 0x9000u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(other.copy()->cped_slot), 0x1000u);
  }).join();
  // Entered after customlabels wrote its discovery there: the module's own
  // stores win, and customlabels' clear leaves them.
  std::thread([&] {
    PublishNodeDiscovery(Discovery(0x1000));
    EXPECT_EQ(MirrorStateOf(other.copy(), otel_thread_ctx_nodejs_v1), MirrorState::kMirrored);
    other.claim(0x1000, 0x9000);
    ClearNodeDiscovery();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(other.copy()->als_handle), 0x9000u);
  }).join();
  dlclose(other.handle);
}

TEST(NodeMirrors, ACxxThreadLocalCopyWithAnInitialiserIsNeverWritten) {
  void* handle = dlopen(CUSTOMLABELS_OTHER_WRITER_CXX_MODULE, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  ASSERT_NE(dlsym(handle, "_ZTH25otel_thread_ctx_nodejs_v1"), nullptr);  // what the rule keys on
  const auto copy = reinterpret_cast<Copy>(dlsym(handle, "other_writer_copy"));
  ClearNodeDiscovery();
  PublishNodeDiscovery(Discovery(0x1000));
  EXPECT_EQ(AddNodeMirror(CUSTOMLABELS_OTHER_WRITER_CXX_MODULE, otel_thread_ctx_nodejs_v1), MirrorState::kUnsafe);
  const auto claim = reinterpret_cast<Claim>(dlsym(handle, "other_writer_claim"));
  std::thread([&] {
    PublishNodeDiscovery(Discovery(0x3000));
    EXPECT_EQ(copy()->cped_slot, nullptr);  // nothing of ours
    // Filled by its module: said so (reading it is safe), still never written.
    claim(0x3000, 0x9000);
    EXPECT_EQ(AddNodeMirror(CUSTOMLABELS_OTHER_WRITER_CXX_MODULE, otel_thread_ctx_nodejs_v1), MirrorState::kClaimed);
    ClearNodeDiscovery();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(copy()->als_handle), 0x9000u);
  }).join();
  EXPECT_EQ(copy()->cped_slot, nullptr);
  EXPECT_STREQ(MirrorStateName(MirrorState::kUnsafe), "unsafe");
  ClearNodeDiscovery();
  dlclose(handle);
}

TEST(NodeMirrors, AModuleNotLoadedOrOurOwnIsAbsent) {
  ClearNodeDiscovery();
  PublishNodeDiscovery(Discovery(0x1000));
  EXPECT_EQ(AddNodeMirror("/nonexistent/dd_pprof.node", otel_thread_ctx_nodejs_v1),
            MirrorState::kAbsent);
  // The test executable's own symbol is customlabels' (not a copy of it).
  EXPECT_EQ(AddNodeMirror("", otel_thread_ctx_nodejs_v1), MirrorState::kAbsent);
  EXPECT_STREQ(MirrorStateName(MirrorState::kMirrored), "mirrored");
  EXPECT_STREQ(MirrorStateName(MirrorState::kClaimed), "claimed");
  EXPECT_STREQ(MirrorStateName(MirrorState::kAbsent), "absent");
  ClearNodeDiscovery();
}

}  // namespace
}  // namespace customlabels::core
