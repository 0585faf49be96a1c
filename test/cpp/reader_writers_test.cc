// What another writer of the same standards does to each reader's verdict
// (src/reader/writers.h): its one-per-process rules and the process
// context it decodes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reader/reader_lookups.h"
#include "reader/reader_verdicts.h"
#include "reader/writers.h"

namespace customlabels::reader {
namespace {

std::vector<ReaderVerdict> AllSee() {
  std::vector<ReaderVerdict> out;
  for (const KnownReader& r : KnownReaders()) {
    ReaderVerdict v;
    v.reader = &r;
    v.answer = ReaderVerdict::Answer::kSees;
    v.brief = "yes";
    out.push_back(v);
  }
  return out;
}

const ReaderVerdict& Of(const std::vector<ReaderVerdict>& vs, const char* name) {
  for (const ReaderVerdict& v : vs) {
    if (std::string(v.reader->name) == name) return v;
  }
  throw std::runtime_error(name);
}

ProcessWriters TwoNodejsWriters() {
  ProcessWriters w;
  ModuleWriter dd;
  dd.path = "/app/node_modules/@datadog/pprof/prebuilds/linux-x64/dd_pprof.node.abi137.node";
  dd.nodejs_v1 = true;
  ModuleWriter cl;
  cl.path = "/app/node_modules/customlabels/build/Release/customlabels.node";
  cl.customlabels = cl.abi_v1 = cl.tls_v1 = cl.nodejs_v1 = true;
  w.modules = {dd, cl};
  w.contexts = {"/memfd:OTEL_CTX at 0x7f0000000000"};
  return w;
}

TEST(ReaderWriters, HooksOffTwoNodejsExportersMakeTheDesignDocReaderPartlyAndNoOtherReader) {
  std::vector<ReaderVerdict> vs = AllSee();
  ProcessMode mode;
  mode.labelled = 1;
  mode.labelled_hookfree = 1;
  mode.schema = "nodejs_v1_dev";
  AmendVerdicts(TwoNodejsWriters(), mode, &vs);
  EXPECT_EQ(Of(vs, "otel-nodejs").answer, ReaderVerdict::Answer::kPartly);
  EXPECT_EQ(Of(vs, "otel-nodejs").brief, "maybe: 2 modules export otel_thread_ctx_nodejs_v1");
  EXPECT_NE(Of(vs, "otel-nodejs").text.find("dd_pprof.node.abi137.node"), std::string::npos);
  for (const char* name : {"abi-v1", "parca", "otel-tls"}) EXPECT_EQ(Of(vs, name).answer, ReaderVerdict::Answer::kSees) << name;
}

TEST(ReaderWriters, HooksOnTwoNodejsExportersChangeNothing) {
  std::vector<ReaderVerdict> vs = AllSee();
  ProcessMode mode;
  mode.labelled = 1;
  mode.schema = "tlsdesc_v1_dev";
  AmendVerdicts(TwoNodejsWriters(), mode, &vs);
  for (const ReaderVerdict& v : vs) EXPECT_EQ(v.answer, ReaderVerdict::Answer::kSees) << v.reader->name;
}

TEST(ReaderWriters, AnotherWritersProcessContextLeavesTheOpenTelemetryReadersNothing) {
  std::vector<ReaderVerdict> vs = AllSee();
  ProcessMode mode;
  mode.labelled = 1;  // with hooks, yet the context says nodejs_v1_dev: not customlabels'
  mode.schema = "nodejs_v1_dev";
  AmendVerdicts(TwoNodejsWriters(), mode, &vs);
  EXPECT_EQ(Of(vs, "otel-tls").answer, ReaderVerdict::Answer::kSeesNothing);
  EXPECT_EQ(Of(vs, "otel-nodejs").answer, ReaderVerdict::Answer::kSeesNothing);
  EXPECT_EQ(Of(vs, "otel-tls").brief, "no: the process context is another writer's (nodejs_v1_dev)");
  EXPECT_EQ(Of(vs, "parca").answer, ReaderVerdict::Answer::kSees);
}

TEST(ReaderWriters, TwoProcessContextsArePartlyForTheOpenTelemetryReaders) {
  std::vector<ReaderVerdict> vs = AllSee();
  ProcessWriters w;
  w.contexts = {"/memfd:OTEL_CTX at 0x7f0000002000", "/memfd:OTEL_CTX at 0x7f0000001000"};
  ProcessMode mode;
  mode.labelled = 1;
  mode.schema = "tlsdesc_v1_dev";
  AmendVerdicts(w, mode, &vs);
  EXPECT_EQ(Of(vs, "otel-tls").answer, ReaderVerdict::Answer::kPartly);
  EXPECT_EQ(Of(vs, "otel-tls").brief, "maybe: 2 process contexts");
  EXPECT_EQ(Of(vs, "abi-v1").answer, ReaderVerdict::Answer::kSees);
}

TEST(ReaderWriters, JsonListsEveryWriterWithItsSymbols) {
  EXPECT_EQ(JsonWriters(TwoNodejsWriters()),
            "{\"modules\":[{\"path\":\"/app/node_modules/@datadog/pprof/prebuilds/linux-x64/dd_pprof.node.abi137.node\","
            "\"customlabels\":false,\"symbols\":[\"otel_thread_ctx_nodejs_v1\"]},"
            "{\"path\":\"/app/node_modules/customlabels/build/Release/customlabels.node\",\"customlabels\":true,"
            "\"symbols\":[\"custom_labels_abi_version\",\"otel_thread_ctx_v1\",\"otel_thread_ctx_nodejs_v1\"]}],"
            "\"contexts\":[\"/memfd:OTEL_CTX at 0x7f0000000000\"]}");
}

}  // namespace
}  // namespace customlabels::reader
