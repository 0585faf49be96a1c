// The OTEP 4719 process context: the payload decoded by protoc against the
// OpenTelemetry proto shapes (test/proto/process_context.proto), the mapping read by the
// OTEP's reading protocol, and the key map's publication.
#include "core/process_context.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/process_context_mapping.h"
#include "core/process_context_payload.h"

#ifndef CUSTOMLABELS_PROBE_SOURCE_ROOT
#error "CMake defines CUSTOMLABELS_PROBE_SOURCE_ROOT"
#endif

namespace customlabels::core {
namespace {

std::string Run(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  pclose(p);
  return out;
}

// `payload` decoded as a ProcessContext by protoc, in protoc's text format.
std::string ProtocDecode(const std::string& payload) {
  char path[] = "/tmp/customlabels-payload-XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, payload.data(), payload.size()), static_cast<ssize_t>(payload.size()));
  close(fd);
  const std::string root = std::string(CUSTOMLABELS_PROBE_SOURCE_ROOT) + "/test/proto";
  const std::string out =
      Run("protoc --proto_path=" + root +
          " --decode=opentelemetry.proto.processcontext.v1development.ProcessContext"
          " process_context.proto < " +
          path + " 2>&1");
  unlink(path);
  return out;
}

bool HaveProtoc() { return Run("command -v protoc").find("protoc") != std::string::npos; }

TEST(ProcessContextPayload, DecodesWithTheOpenTelemetryProtoDefinitions) {
  // .ci/run installs protobuf-compiler; this skip fails CI (not allow-listed).
  if (!HaveProtoc()) GTEST_SKIP() << "protoc not installed: apt-get install protobuf-compiler";
  ProcessContextContents c;
  c.resource = {{"service.name", "checkout"}, {"deployment.environment.name", "prod"}};
  c.attribute_keys = {"route", "method", "h\xc3\xa9"};
  EXPECT_EQ(ProtocDecode(EncodeProcessContext(c)),
            "resource {\n"
            "  attributes {\n"
            "    key: \"service.name\"\n"
            "    value {\n"
            "      string_value: \"checkout\"\n"
            "    }\n"
            "  }\n"
            "  attributes {\n"
            "    key: \"deployment.environment.name\"\n"
            "    value {\n"
            "      string_value: \"prod\"\n"
            "    }\n"
            "  }\n"
            "}\n"
            "attributes {\n"
            "  key: \"threadlocal.schema_version\"\n"
            "  value {\n"
            "    string_value: \"tlsdesc_v1_dev\"\n"
            "  }\n"
            "}\n"
            "attributes {\n"
            "  key: \"threadlocal.attribute_key_map\"\n"
            "  value {\n"
            "    array_value {\n"
            "      values {\n"
            "        string_value: \"route\"\n"
            "      }\n"
            "      values {\n"
            "        string_value: \"method\"\n"
            "      }\n"
            "      values {\n"
            "        string_value: \"h\\303\\251\"\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(ProcessContextPayload, LongStringsUseMultiByteLengths) {
  if (!HaveProtoc()) GTEST_SKIP() << "protoc not installed: apt-get install protobuf-compiler";
  ProcessContextContents c;
  c.resource = {{"big", std::string(20000, 'v')}};
  const std::string decoded = ProtocDecode(EncodeProcessContext(c));
  EXPECT_NE(decoded.find("string_value: \"" + std::string(20000, 'v') + "\""), std::string::npos);
  EXPECT_NE(decoded.find("threadlocal.attribute_key_map"), std::string::npos);
}

// The mapping as /proc/self/maps names it ("" if none).
std::string MappingName(const void* address) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) != 2) continue;
    const auto a = reinterpret_cast<uintptr_t>(address);
    if (a >= lo && a < hi) {
      const size_t name = line.find_first_of("/[");
      return name == std::string::npos ? "" : line.substr(name);
    }
  }
  return "";
}

// Copies bytes of this process as an external reader does (a raw
// process_vm_readv: a stale or torn pointer gives EFAULT or stale bytes,
// never a fault, and sanitizers do not look into the kernel's copy).
bool CopyFromSelf(uint64_t address, std::string* out, size_t size) {
  out->assign(size, '\0');
  iovec local{out->data(), size};
  iovec remote{reinterpret_cast<void*>(static_cast<uintptr_t>(address)), size};
  return syscall(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 0) ==
         static_cast<long>(size);
}

// The OTEP's reading protocol over this process's memory: timestamp (not
// 0), header and payload, timestamp again (unchanged).
struct Read {
  bool ok = false;
  uint64_t published_at = 0;
  std::string payload;
};
Read ReadByProtocol(const ProcessContextHeader* h) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const uint64_t t1 = __atomic_load_n(&h->monotonic_published_at_ns, __ATOMIC_SEQ_CST);
    if (t1 == 0) continue;
    if (std::memcmp(h->signature, "OTEL_CTX", 8) != 0 || h->version != 2) return {};
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const uint64_t address = __atomic_load_n(&h->payload, __ATOMIC_RELAXED);
    const uint32_t size = __atomic_load_n(&h->payload_size, __ATOMIC_RELAXED);
    std::string payload;
    if (!CopyFromSelf(address, &payload, size)) continue;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (__atomic_load_n(&h->monotonic_published_at_ns, __ATOMIC_SEQ_CST) == t1) {
      return {true, t1, payload};
    }
  }
  return {};
}

TEST(ProcessContextMapping, PublishesAndUpdatesByTheOtepProtocols) {
  ProcessContextMapping m;
  EXPECT_FALSE(m.Publish(""));                                 // readers refuse size 0
  EXPECT_FALSE(m.Publish(std::string(65537, 'x')));            // and over 64 KiB
  ASSERT_TRUE(m.Publish(std::string("first payload bytes")));  // NOLINT
  const ProcessContextHeader* h = m.header();
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(h) % 4096, 0u);
  const Read first = ReadByProtocol(h);
  ASSERT_TRUE(first.ok);
  EXPECT_EQ(first.payload, "first payload bytes");
  EXPECT_NE(first.published_at, 0u);
  // memfd: "/memfd:OTEL_CTX (deleted)"; anonymous: "[anon:OTEL_CTX]" where
  // the kernel names anonymous mappings.
  const std::string name = MappingName(h);
  EXPECT_TRUE(name.rfind("/memfd:OTEL_CTX", 0) == 0 || name == "[anon:OTEL_CTX]" ||
              name == "[anon_shmem:OTEL_CTX]")
      << name;
  EXPECT_TRUE(ProcessContextMapping::OtherPublisherPresent());

  ASSERT_TRUE(m.Publish(std::string("the second, longer payload")));
  const Read second = ReadByProtocol(h);
  ASSERT_TRUE(second.ok);
  EXPECT_EQ(second.payload, "the second, longer payload");
  EXPECT_GT(second.published_at, first.published_at);  // strictly increasing
}

TEST(ProcessContextMapping, AReaderRacingUpdatesOnlyEverGetsAWholePayload) {
  ProcessContextMapping m;
  ASSERT_TRUE(m.Publish(std::string(100, 'a')));
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop; ++i)
      m.Publish(std::string(100 + i % 50, static_cast<char>('a' + i % 26)));
  });
  int reads = 0;
  for (int i = 0; i < 20000; ++i) {
    const Read r = ReadByProtocol(m.header());
    if (!r.ok) continue;
    ++reads;
    ASSERT_GE(r.payload.size(), 100u);
    ASSERT_EQ(r.payload, std::string(r.payload.size(), r.payload[0])) << "a torn payload";
  }
  stop = true;
  writer.join();
  EXPECT_GT(reads, 0);
}

TEST(ProcessContextMapping, AForkedChildPublishesAMappingOfItsOwn) {
  ProcessContextMapping m;
  ASSERT_TRUE(m.Publish(std::string("the parent's payload")));
  const ProcessContextHeader* parent = m.header();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // MADV_DONTFORK: the parent's header is not mapped here; an update must
    // not write to it but make a new mapping.
    // (The new mapping may well land where the parent's was.)
    const bool ok = m.Publish(std::string("the child's own payload")) && m.header() != nullptr &&
                    ReadByProtocol(m.header()).payload == "the child's own payload";
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(ReadByProtocol(parent).payload, "the parent's payload");
}

TEST(ProcessContext, PublishesOnFirstUseAndRepublishesWhenAKeyIsAppended) {
  ProcessContext context;
  EXPECT_EQ(context.KeyIndex("route"), -1);  // not published yet
  EXPECT_EQ(context.status().state, ProcessContext::State::kUnpublished);
  ASSERT_TRUE(context.EnsurePublished());
  const auto s = context.status();
  EXPECT_EQ(s.state, ProcessContext::State::kPublished);
  EXPECT_NE(s.kind, ProcessContextMapping::Kind::kNone);
  EXPECT_EQ(context.KeyIndex("route"), 0);
  EXPECT_EQ(context.KeyIndex("method"), 1);
  EXPECT_EQ(context.KeyIndex("route"), 0);
  EXPECT_EQ(context.status().keys, 2u);
  context.SetResource({{"service.name", "svc"}, {"", "dropped: empty key"}});
  if (HaveProtoc()) {
    // What a reader gets now holds both keys and the resource.
    const Read read = ReadByProtocol(context.status().header);
    ASSERT_TRUE(read.ok);
    const std::string decoded = ProtocDecode(read.payload);
    EXPECT_NE(decoded.find("string_value: \"svc\""), std::string::npos) << decoded;
    EXPECT_NE(decoded.find("string_value: \"method\""), std::string::npos) << decoded;
    EXPECT_EQ(decoded.find("dropped"), std::string::npos) << decoded;
  }
}

TEST(ProcessContext, StandsBackWhenAnotherPublisherHoldsTheProcessContext) {
  ProcessContextMapping other;
  ASSERT_TRUE(other.Publish("someone else's"));
  ProcessContext context;
  EXPECT_FALSE(context.EnsurePublished());
  EXPECT_EQ(context.status().state, ProcessContext::State::kOtherPublisher);
  EXPECT_EQ(context.KeyIndex("route"), -1);
}

}  // namespace
}  // namespace customlabels::core
