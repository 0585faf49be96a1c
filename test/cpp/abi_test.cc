// The ABI as readers see it: exported symbols, static TLS in a dlopen()ed
// module, per-thread publication, and whole sets only for a concurrent reader.
#include "core/abi.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "core/label_set_builder.h"
#include "core/tls_descriptor.h"
#include "test_util.h"

namespace customlabels::core {
namespace {

struct Probe {
  void* handle = nullptr;
  void (*inspect)(TlsDescriptorInfo*) = nullptr;
  void (*publish)(const custom_labels_labelset_t*) = nullptr;
  const uint32_t* version = nullptr;
};

Probe LoadProbe() {
  Probe p;
  p.handle = dlopen(CUSTOMLABELS_PROBE_MODULE, RTLD_NOW | RTLD_LOCAL);
  if (p.handle == nullptr) return p;
  p.inspect =
      reinterpret_cast<void (*)(TlsDescriptorInfo*)>(dlsym(p.handle, "customlabels_probe_inspect"));
  p.publish = reinterpret_cast<void (*)(const custom_labels_labelset_t*)>(
      dlsym(p.handle, "customlabels_probe_publish"));
  p.version = static_cast<const uint32_t*>(dlsym(p.handle, "custom_labels_abi_version"));
  return p;
}

TEST(Abi, VersionSymbolIsOne) {
  EXPECT_EQ(custom_labels_abi_version, 1u);
  const Probe p = LoadProbe();
  ASSERT_NE(p.handle, nullptr) << dlerror();
  ASSERT_NE(p.version, nullptr);
  EXPECT_EQ(*p.version, 1u);
}

TEST(Abi, DlopenedModuleGetsStaticTlsThroughItsDescriptor) {
  const Probe p = LoadProbe();
  ASSERT_NE(p.handle, nullptr) << dlerror();
  auto check = [&p] {
    TlsDescriptorInfo info;
    p.inspect(&info);
    EXPECT_TRUE(info.found);
    EXPECT_TRUE(info.static_tls);
    auto* slot =
        static_cast<const custom_labels_labelset_t**>(dlsym(p.handle, "custom_labels_current_set"));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(slot), info.variable_address);
    // What a static-TLS reader computes from the descriptor is this thread's slot.
    EXPECT_EQ(ThreadPointer() + info.argument, reinterpret_cast<uintptr_t>(slot));
  };
  check();
  std::thread other(check);  // a thread created after the dlopen
  other.join();
}

TEST(Abi, ModuleThreadLocalStorageIsOnePointer) {
  const Probe p = LoadProbe();
  ASSERT_NE(p.handle, nullptr) << dlerror();
  struct Found {
    size_t memsz = 0;
    bool seen = false;
  } found;
  dl_iterate_phdr(
      [](dl_phdr_info* mod, size_t, void* data) {
        auto* f = static_cast<Found*>(data);
        if (mod->dlpi_name == nullptr ||
            std::strstr(mod->dlpi_name, "customlabels_probe") == nullptr) {
          return 0;
        }
        for (int i = 0; i < mod->dlpi_phnum; ++i) {
          if (mod->dlpi_phdr[i].p_type == PT_TLS) f->memsz = mod->dlpi_phdr[i].p_memsz;
        }
        f->seen = true;
        return 1;
      },
      &found);
  ASSERT_TRUE(found.seen);
  EXPECT_EQ(found.memsz, sizeof(void*));
}

TEST(Abi, PublishIsPerThread) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  b.Set("thread", "main");
  auto set = testing::Write(b);
  PublishCurrent(set.set);
  const custom_labels_labelset_t* seen_in_other = set.set;
  std::thread other([&seen_in_other] { seen_in_other = LoadCurrent(); });
  other.join();
  EXPECT_EQ(seen_in_other, nullptr);
  EXPECT_EQ(LoadCurrent(), set.set);
  EXPECT_EQ(*CurrentSlot(), set.set);
  PublishCurrent(nullptr);
  EXPECT_EQ(LoadCurrent(), nullptr);
}

// A reader on another CPU samples the writer's slot while the writer keeps
// switching: every value it sees must be a whole, published set or NULL.
TEST(Abi, ConcurrentReaderOnlySeesWholeSets) {
  LabelSetBuilder b;
  b.Reset(nullptr);
  b.Set("which", "A");
  auto a = testing::Write(b);
  b.Reset(nullptr);
  b.Set("which", "B");
  b.Set("extra", "x");
  auto bset = testing::Write(b);
  std::atomic<const custom_labels_labelset_t**> slot{nullptr};
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    slot = CurrentSlot();
    while (!stop.load(std::memory_order_relaxed)) {
      PublishCurrent(a.set);
      PublishCurrent(bset.set);
      PublishCurrent(nullptr);
    }
    PublishCurrent(nullptr);
  });
  while (slot.load() == nullptr) std::this_thread::yield();
  size_t reads = 0, bad = 0;
  for (; reads < 2000000; ++reads) {
    const custom_labels_labelset_t* p = __atomic_load_n(slot.load(), __ATOMIC_RELAXED);
    if (p != nullptr && p != a.set && p != bset.set) {
      ++bad;
    } else if (p != nullptr && ReadLabelSet(p).size() != p->count) {
      ++bad;
    }
  }
  stop = true;
  writer.join();
  EXPECT_EQ(bad, 0u) << "of " << reads << " reads";
}

}  // namespace
}  // namespace customlabels::core
