// What another writer of the same standards does to each reader's verdict
// (src/reader/writers.h): its one-per-process rules and the process
// context it decodes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reader/process_context.h"
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

// What `reads` saw of the other module's copy: one thread whose own
// discovery is `ours`, and whose copy in dd_pprof.node holds `copy`.
ThreadRead ThreadWithCopy(uint64_t ours_cped, uint64_t copy_cped, uint64_t copy_handle, bool record) {
  ThreadRead r;
  r.walk_words.cped_slot = ours_cped;
  r.walk_words.als_handle = 0x1000;
  r.walk_words.als_identity_hash = 7;
  r.walk_words.record_slot_offset = 40;
  r.walk_words.undefined_value = 0x61;
  NodeWalk w;
  w.words = r.walk_words;
  w.words.cped_slot = copy_cped;
  w.words.als_handle = copy_handle;
  w.status = copy_cped != 0 ? "found" : "gate-closed";
  w.record = record ? 0x5000 : 0;
  r.other_walks.push_back(w);
  return r;
}

ProcessWriters CountedWriters(const std::vector<ThreadRead>& reads) {
  ProcessWriters w = TwoNodejsWriters();
  w.modules[0].nodejs_tls = TlsVariable{};
  std::vector<const ThreadRead*> pointers;
  for (const ThreadRead& r : reads) pointers.push_back(&r);
  CountCopies(pointers, &w);
  return w;
}

TEST(ReaderWriters, CountCopiesTellsCustomlabelsDiscoveryFromTheModulesOwnAndFromNone) {
  const ProcessWriters w = CountedWriters({
      ThreadWithCopy(0x2000, 0x2000, 0x1000, true),   // the same as ours: mirrored
      ThreadWithCopy(0x3000, 0x3000, 0x9000, true),   // another storage: its own
      ThreadWithCopy(0x4000, 0, 0, false),            // empty
      ThreadWithCopy(0, 0x5000, 0x9000, false),       // customlabels published none: not counted
  });
  const ModuleWriter& dd = w.modules[0];
  EXPECT_EQ(dd.published, 3u);
  EXPECT_EQ(dd.mirrored, 1u);
  EXPECT_EQ(dd.own, 1u);
  EXPECT_EQ(dd.empty, 1u);
  EXPECT_EQ(dd.records, 2u);
  EXPECT_NE(TextWriters(w).find("its otel_thread_ctx_nodejs_v1 on the 3 thread(s) where customlabels published its own: "
                                "customlabels' on 1, its own on 1, empty on 1; a walk from it finds a record on 2 thread(s)"),
            std::string::npos);
  EXPECT_NE(JsonWriters(w).find("\"copies\":{\"published\":3,\"mirrored\":1,\"own\":1,\"empty\":1,\"records\":2}"),
            std::string::npos);
}

TEST(ReaderWriters, HooksOffTheDesignDocReaderSeesWhereEveryOtherCopyCarriesCustomlabelsDiscovery) {
  ProcessMode mode;
  mode.labelled = 2;
  mode.labelled_hookfree = 2;
  mode.schema = "nodejs_v1_dev";
  std::vector<ReaderVerdict> vs = AllSee();
  AmendVerdicts(CountedWriters({ThreadWithCopy(0x2000, 0x2000, 0x1000, true), ThreadWithCopy(0x3000, 0x3000, 0x1000, true)}),
                mode, &vs);
  EXPECT_EQ(Of(vs, "otel-nodejs").answer, ReaderVerdict::Answer::kSees);
  EXPECT_NE(Of(vs, "otel-nodejs").text.find("whichever it keeps, it walks customlabels' AsyncLocalStorage"), std::string::npos);
  // One thread whose copy is empty (customlabels had not written it yet), or
  // the module's own: the reader may walk that one.
  for (const ThreadRead& other : {ThreadWithCopy(0x3000, 0, 0, false), ThreadWithCopy(0x3000, 0x3000, 0x9000, true)}) {
    vs = AllSee();
    AmendVerdicts(CountedWriters({ThreadWithCopy(0x2000, 0x2000, 0x1000, true), other}), mode, &vs);
    EXPECT_EQ(Of(vs, "otel-nodejs").answer, ReaderVerdict::Answer::kPartly);
    EXPECT_EQ(Of(vs, "otel-nodejs").brief, "maybe: 2 modules export otel_thread_ctx_nodejs_v1");
  }
  // A module whose copy could not be reached is not taken for mirrored.
  vs = AllSee();
  ProcessWriters unread = TwoNodejsWriters();
  AmendVerdicts(unread, mode, &vs);
  EXPECT_EQ(Of(vs, "otel-nodejs").answer, ReaderVerdict::Answer::kPartly);
}

TEST(ReaderWriters, HooksOffUnderAProcessContextThatNamesNoneOfTheLabelKeysTheOpenTelemetryReadersSeeNothing) {
  ProcessMode mode;
  mode.labelled = 1;
  mode.labelled_hookfree = 1;
  mode.hookfree_unkeyed = 1;
  mode.schema = "nodejs_v1_dev";
  std::vector<ReaderVerdict> vs = AllSee();
  AmendVerdicts(TwoNodejsWriters(), mode, &vs);
  for (const char* name : {"otel-tls", "otel-nodejs"}) {
    EXPECT_EQ(Of(vs, name).answer, ReaderVerdict::Answer::kSeesNothing) << name;
    EXPECT_NE(Of(vs, name).text.find("key map names none of the labelled threads' label keys"), std::string::npos) << name;
    EXPECT_EQ(Of(vs, name).todo.rfind("run with hooks on", 0), 0u) << name;
  }
  // One labelled thread of two keyed: the context is customlabels'.
  mode.labelled = 2;
  mode.labelled_hookfree = 2;
  vs = AllSee();
  AmendVerdicts(ProcessWriters{}, mode, &vs);
  EXPECT_EQ(Of(vs, "otel-nodejs").answer, ReaderVerdict::Answer::kSees);
}

TEST(ReaderWriters, ModeOfCountsHookFreeSetsWhoseKeysTheContextDoesNotName) {
  ProcessContext context;
  context.key_map = AttributeKeyMap{std::string("datadog.local_root_span_id"), std::string("datadog.trace_endpoint"), std::nullopt};
  ThreadRead keyed, unkeyed;
  for (ThreadRead* r : {&keyed, &unkeyed}) {
    r->via = "node-walk";
    r->set.address = 0x7000;
    Slot slot;
    slot.key = r == &keyed ? "datadog.trace_endpoint" : "tenant";
    slot.value = "acme";
    r->set.slots.push_back(slot);
  }
  const ProcessMode m = ModeOf({{1, &keyed}, {2, &unkeyed}}, &context);
  EXPECT_EQ(m.labelled_hookfree, 2u);
  EXPECT_EQ(m.hookfree_unkeyed, 1u);
  EXPECT_EQ(ModeOf({{2, &unkeyed}}, nullptr).hookfree_unkeyed, 1u);
}

}  // namespace
}  // namespace customlabels::reader
