// The ABI as readers see it: exported symbols, static TLS in a dlopen()ed
// module, per-thread publication, and whole sets only for a reader that
// interrupts the thread.
#include "core/abi.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/label_set_builder.h"
#include "core/tls_descriptor.h"
#include "test_util.h"

namespace customlabels::core {
namespace {

struct Probe {
  void* handle = nullptr;
  void (*inspect)(TlsDescriptorInfo*, TlsSymbol) = nullptr;
  void (*publish)(const custom_labels_labelset_t*) = nullptr;
  const uint32_t* version = nullptr;
};

Probe LoadProbe() {
  Probe p;
  p.handle = dlopen(CUSTOMLABELS_PROBE_MODULE, RTLD_NOW | RTLD_LOCAL);
  if (p.handle == nullptr) return p;
  p.inspect = reinterpret_cast<void (*)(TlsDescriptorInfo*, TlsSymbol)>(
      dlsym(p.handle, "customlabels_probe_inspect"));
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
    // Both thread-local variables: the ABI's and OTEP 4947's.
    const std::pair<TlsSymbol, const char*> symbols[] = {
        {TlsSymbol::kCurrentSet, "custom_labels_current_set"},
        {TlsSymbol::kThreadContext, "otel_thread_ctx_v1"}};
    for (const auto& [which, name] : symbols) {
      TlsDescriptorInfo info;
      p.inspect(&info, which);
      EXPECT_TRUE(info.found) << name;
      EXPECT_TRUE(info.static_tls) << name;
      void* slot = dlsym(p.handle, name);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(slot), info.variable_address) << name;
      // What a static-TLS reader computes from the descriptor is this thread's slot.
      EXPECT_EQ(ThreadPointer() + info.argument, reinterpret_cast<uintptr_t>(slot)) << name;
    }
  };
  check();
  std::thread other(check);  // a thread created after the dlopen
  other.join();
}

TEST(Abi, ModuleThreadLocalStorageIsThePublishedVariables) {
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
  // custom_labels_current_set, otel_thread_ctx_v1, otel_thread_ctx_nodejs_v1
  // (32 bytes), custom_labels_als_handle and custom_labels_als_identity_hash
  // (4 bytes: 60, or 64 where the compiler pads it), and nothing else: the
  // readers assume static TLS, which every module shares.
  EXPECT_GE(found.memsz, 60u);
  EXPECT_LE(found.memsz, 64u);
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

// What a profiler does: interrupt the thread (here a signal delivered to the
// thread itself, as a timer or perf event interrupts it) and read
// custom_labels_current_set and the whole set it points to. The writer
// publishes a new set on every iteration, written into memory that held
// garbage just before (as a reused slab does), with a checksum over its labels,
// so a set published before it is fully written shows as torn.
class InterruptingReader {
 public:
  static constexpr size_t kBuffers = 3;
  static constexpr size_t kBufferBytes = 1024;

  struct Result {
    uint64_t reads = 0;    // signals handled on the writer thread
    uint64_t sets = 0;     // of which found a set published
    uint64_t changes = 0;  // of which found another set than the read before
    uint64_t torn = 0;     // of which found a set that is not whole
  };

  // Runs a writer thread that publishes sets (`publish_early`: a broken
  // writer that publishes each set before writing it) while another thread
  // interrupts it, until `target_sets` reads found a set, a torn set was seen
  // with `stop_when_torn`, or `seconds` passed.
  static Result Run(bool publish_early, uint64_t target_sets, bool stop_when_torn, int seconds) {
    InterruptingReader r;
    instance_ = &r;
    struct sigaction sa {};
    struct sigaction old {};
    sa.sa_handler = &InterruptingReader::OnSignal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, &old);
    std::atomic<bool> stop{false};
    std::atomic<bool> ready{false};
    std::thread writer([&] {
      r.slot_ = CurrentSlot();  // before any signal is sent to this thread
      ready = true;
      r.WriteSets(publish_early, stop);
    });
    while (!ready) std::this_thread::yield();
    const pthread_t target = writer.native_handle();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    // One signal at a time: send, then wait until the writer has handled it.
    for (uint64_t sent = 0;
         r.sets_.load() < target_sets && !(stop_when_torn && r.torn_.load() > 0) &&
         std::chrono::steady_clock::now() < deadline;
         ++sent) {
      pthread_kill(target, SIGUSR2);
      while (r.reads_.load() <= sent && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::microseconds(20));  // leave the CPU to the writer
      }
    }
    stop = true;
    writer.join();
    sigaction(SIGUSR2, &old, nullptr);
    instance_ = nullptr;
    return {r.reads_.load(), r.sets_.load(), r.changes_.load(), r.torn_.load()};
  }

 private:
  static constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ULL;
  static uint64_t Fnv(uint64_t h, const unsigned char* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
  }

  void WriteSets(bool publish_early, const std::atomic<bool>& stop) {
    LabelSetBuilder b;
    std::vector<std::string> keys;
    std::vector<std::string> values;
    char hex[17];
    for (uint64_t seq = 0; !stop.load(std::memory_order_relaxed); ++seq) {
      // Labels k0..kN with values derived from seq, then "sum": the checksum.
      const size_t n = 1 + seq % 6;
      keys.clear();
      values.clear();
      uint64_t sum = kFnvBasis;
      for (size_t j = 0; j < n; ++j) {
        keys.push_back("k" + std::to_string(j));
        std::snprintf(hex, sizeof(hex), "%016llx",
                      static_cast<unsigned long long>(seq * 0x9e3779b97f4a7c15ULL + j));
        values.emplace_back(hex);
        sum = Fnv(sum, reinterpret_cast<const unsigned char*>(keys[j].data()), keys[j].size());
        sum = Fnv(sum, reinterpret_cast<const unsigned char*>(values[j].data()), values[j].size());
      }
      std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(sum));
      b.Reset(nullptr);
      for (size_t j = 0; j < n; ++j) b.Set(keys[j], values[j]);
      b.Set("sum", hex);
      // Never the buffer published now, which is the previous one.
      unsigned char* buffer = buffers_[seq % kBuffers];
      std::memset(buffer, 0xa5, kBufferBytes);
      if (publish_early) {
        PublishCurrent(reinterpret_cast<const custom_labels_labelset_t*>(buffer));
        b.WriteTo(buffer, kBufferBytes);
      } else {
        PublishCurrent(b.WriteTo(buffer, kBufferBytes));
      }
    }
    PublishCurrent(nullptr);
  }

  static void OnSignal(int) {
    InterruptingReader* r = instance_;
    if (r == nullptr) return;
    const custom_labels_labelset_t* set = __atomic_load_n(r->slot_, __ATOMIC_RELAXED);
    r->reads_.fetch_add(1, std::memory_order_relaxed);
    if (set == nullptr) return;
    r->sets_.fetch_add(1, std::memory_order_relaxed);
    if (set != r->last_) r->changes_.fetch_add(1, std::memory_order_relaxed);
    r->last_ = set;
    if (!r->Whole(set)) r->torn_.fetch_add(1, std::memory_order_relaxed);
  }

  // Whether `set` is one of the buffers holding a whole set as WriteSets
  // writes them: every pointer inside the buffer, count == capacity, keys
  // k0..kN then "sum", and the checksum right. Async-signal-safe.
  bool Whole(const custom_labels_labelset_t* set) const {
    const auto* base = reinterpret_cast<const unsigned char*>(set);
    bool ours = false;
    for (const auto& buffer : buffers_) ours = ours || base == buffer;
    if (!ours) return false;
    const unsigned char* end = base + kBufferBytes;
    auto inside = [base, end](const void* p, size_t n) {
      const auto* c = static_cast<const unsigned char*>(p);
      return c >= base && c <= end && n <= static_cast<size_t>(end - c);
    };
    if (set->count < 2 || set->count > 7 || set->capacity != set->count ||
        !inside(set->storage, set->count * sizeof(custom_labels_label_t))) {
      return false;
    }
    uint64_t sum = kFnvBasis;
    for (size_t j = 0; j < set->count; ++j) {
      const custom_labels_label_t& l = set->storage[j];
      if (!inside(l.key.buf, l.key.len) || !inside(l.value.buf, l.value.len) || l.value.len != 16) {
        return false;
      }
      const bool last = j + 1 == set->count;
      if (last ? (l.key.len != 3 || std::memcmp(l.key.buf, "sum", 3) != 0)
               : (l.key.len != 2 || l.key.buf[0] != 'k' || l.key.buf[1] != '0' + j)) {
        return false;
      }
      if (!last) {
        sum = Fnv(sum, l.key.buf, l.key.len);
        sum = Fnv(sum, l.value.buf, l.value.len);
        continue;
      }
      uint64_t stated = 0;
      for (size_t i = 0; i < 16; ++i) {
        const unsigned char c = l.value.buf[i];
        const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (digit < 0) return false;
        stated = stated << 4 | static_cast<uint64_t>(digit);
      }
      if (stated != sum) return false;
    }
    return true;
  }

  static inline InterruptingReader* instance_ = nullptr;
  alignas(8) unsigned char buffers_[kBuffers][kBufferBytes] = {};
  const custom_labels_labelset_t** slot_ = nullptr;
  const custom_labels_labelset_t* last_ = nullptr;  // the handler's own
  std::atomic<uint64_t> reads_{0}, sets_{0}, changes_{0}, torn_{0};
};

TEST(Abi, InterruptingReaderOnlySeesWholeSets) {
  const auto r = InterruptingReader::Run(/*publish_early=*/false, /*target_sets=*/10000,
                                         /*stop_when_torn=*/false, /*seconds=*/60);
  // The reader interrupted the writer often, and between sets being published.
  EXPECT_GE(r.sets, 10000u) << "of " << r.reads << " reads";
  EXPECT_GE(r.changes, 1000u) << "of " << r.sets << " sets read";
  EXPECT_EQ(r.torn, 0u) << "of " << r.sets << " sets read";
}

// The check above can fail: a writer that publishes each set before writing
// it is caught, on the same budget (measured: about 4% of its reads are torn).
TEST(Abi, InterruptingReaderCatchesAPublishBeforeTheSetIsWritten) {
  const auto r = InterruptingReader::Run(/*publish_early=*/true, /*target_sets=*/10000,
                                         /*stop_when_torn=*/true, /*seconds=*/60);
  EXPECT_GT(r.torn, 0u) << "of " << r.sets << " sets read";
}

}  // namespace
}  // namespace customlabels::core
