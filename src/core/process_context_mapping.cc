#include "process_context_mapping.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>

namespace customlabels::core {

namespace {

// From linux/prctl.h and linux/memfd.h, for older headers.
constexpr int kPrSetVma = 0x53564d41;
constexpr unsigned long kPrSetVmaAnonName = 0;
constexpr unsigned int kMfdCloexec = 0x0001U;
constexpr unsigned int kMfdAllowSealing = 0x0002U;
constexpr unsigned int kMfdNoexecSeal = 0x0008U;

int MemfdCreate(const char* name, unsigned int flags) {
  return static_cast<int>(syscall(SYS_memfd_create, name, flags));
}

uint64_t BoottimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// An aligned 8-byte store; readers in other processes copy the header with
// process_vm_readv, so the thread fences below order it for other CPUs.
void StoreTimestamp(ProcessContextHeader* h, uint64_t ns) {
  __atomic_store_n(&h->monotonic_published_at_ns, ns, __ATOMIC_RELAXED);
}

}  // namespace

ProcessContextMapping::~ProcessContextMapping() {
  if (header_ != nullptr) munmap(header_, mapping_bytes_);
}

bool ProcessContextMapping::OtherPublisherPresent() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("/memfd:OTEL_CTX") != std::string::npos ||
        line.find("[anon_shmem:OTEL_CTX]") != std::string::npos ||
        line.find("[anon:OTEL_CTX]") != std::string::npos) {
      return true;
    }
  }
  return false;
}

bool ProcessContextMapping::Create() {
  const long page = sysconf(_SC_PAGESIZE);
  mapping_bytes_ = page > 0 ? static_cast<size_t>(page) : 4096;
  int fd = MemfdCreate(kName, kMfdCloexec | kMfdAllowSealing | kMfdNoexecSeal);
  if (fd < 0) fd = MemfdCreate(kName, kMfdCloexec | kMfdAllowSealing);  // before Linux 6.3
  void* p = MAP_FAILED;
  if (fd >= 0) {
    if (ftruncate(fd, static_cast<off_t>(mapping_bytes_)) == 0) {
      p = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    }
    close(fd);
    kind_ = Kind::kMemfd;
  }
  if (p == MAP_FAILED) {
    p = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    kind_ = Kind::kAnonymous;
  }
  if (p == MAP_FAILED) {
    kind_ = Kind::kNone;
    return false;
  }
  // A forked child must not inherit a context that describes its parent.
  if (madvise(p, mapping_bytes_, MADV_DONTFORK) != 0) {
    munmap(p, mapping_bytes_);
    kind_ = Kind::kNone;
    return false;
  }
  header_ = static_cast<ProcessContextHeader*>(p);
  pid_ = getpid();
  return true;
}

uint64_t ProcessContextMapping::NextTimestamp() {
  // Readers take a timestamp that did not increase for "no update".
  uint64_t ns = BoottimeNs();
  if (ns <= last_published_) ns = last_published_ + 1;
  last_published_ = ns;
  return ns;
}

bool ProcessContextMapping::Name() {
  // Unconditionally, even where it fails (kernels before 5.17 or without
  // CONFIG_ANON_VMA_NAME): the eBPF profiler hooks this prctl to learn that
  // the context was published or updated.
  return prctl(kPrSetVma, kPrSetVmaAnonName, reinterpret_cast<unsigned long>(header_),
               mapping_bytes_, reinterpret_cast<unsigned long>(kName)) == 0;
}

bool ProcessContextMapping::Publish(std::string payload) {
  if (payload.empty() || payload.size() > kMaxPayloadBytes) return false;
  if (header_ != nullptr && pid_ != getpid()) {
    // Forked: the parent's mapping is not in this process.
    header_ = nullptr;
    kind_ = Kind::kNone;
  }
  if (header_ == nullptr) {
    if (!Create()) return false;
    // Anonymous and unnamed, no reader can find it (OTEP 4719: publication
    // failed).
    if (kind_ == Kind::kAnonymous && !Name()) {
      munmap(header_, mapping_bytes_);
      header_ = nullptr;
      kind_ = Kind::kNone;
      return false;
    }
    // The fields, then the signature (a reader that finds it finds them),
    // then the timestamp: the commit point, written last (OTEP 4719).
    payload_ = std::move(payload);
    header_->version = kVersion;
    header_->payload_size = static_cast<uint32_t>(payload_.size());
    header_->payload = reinterpret_cast<uintptr_t>(payload_.data());
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::memcpy(header_->signature, kName, sizeof(header_->signature));
    std::atomic_thread_fence(std::memory_order_seq_cst);
    StoreTimestamp(header_, NextTimestamp());
  } else {
    // The update protocol: 0 ("being updated"), fence, new payload, fence,
    // a later timestamp. The previous payload stays allocated until the next
    // update, so a reader that copied the old pointer reads bytes that are
    // still there (and then sees the timestamp change and retries).
    previous_ = std::move(payload_);
    payload_ = std::move(payload);
    StoreTimestamp(header_, 0);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    header_->payload = reinterpret_cast<uintptr_t>(payload_.data());
    header_->payload_size = static_cast<uint32_t>(payload_.size());
    std::atomic_thread_fence(std::memory_order_seq_cst);
    StoreTimestamp(header_, NextTimestamp());
  }
  Name();
  return true;
}

}  // namespace customlabels::core
