// check --readers' answers (reader/reader_verdicts.h) from threads as read:
// what each known reader saw of the labelled threads, and, with none
// labelled, what its lookup decides for the process's mode; each miss names
// its step and what to do.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reader/reader_sights.h"
#include "reader/reader_verdicts.h"

namespace customlabels::reader {
namespace {

AbiTarget Target() {
  AbiTarget t;
  t.current_set.static_tls = true;
  t.otel = TlsVariable{};
  t.otel->static_tls = true;
  t.node = TlsVariable{};
  t.node->static_tls = true;
  return t;
}

ProcessContext Context(const char* schema) {
  ProcessContext c;
  c.schema_version = AnyValue{};
  c.schema_version->kind = AnyValue::Kind::kString;
  c.schema_version->bytes = schema;
  return c;
}

// The Parca agent's setup on Node `version` (24.21.0: the isolate symbol
// only in .symtab; 26: the CPED offset of its table).
ParcaSetup Parca(uint32_t major, uint32_t minor) {
  ParcaSetup p;
  p.addon_matches = p.v8_loaded = p.has_als_data = true;
  p.version = NodeVersion{major, minor, 0};
  p.wrapped_object_offset = 32;
  p.isolate_table = major >= 26 || minor <= 10 ? ".dynsym" : ".symtab";
  p.cped_offset = major >= 25 ? 640 : 632;
  if (major == 24 && minor > 10) {
    p.node_error = "failed to look up g_current_isolate: symbol not found";
  } else {
    p.isolate_offset = -0x178;
  }
  p.isolate_offset_here = -0x178;
  return p;
}

// A labelled thread: without hooks (the walk found the set, the TLS pointer
// NULL) or with; the CPED slot `cped_at` past the isolate; `parca_set` what
// the Parca agent's lookup recorded.
ThreadRead Labelled(bool hooks, uint64_t cped_at, uint64_t parca_set) {
  ThreadRead r;
  r.set.address = 0x10000;
  r.via = hooks ? "tls" : "node-walk";
  r.walk = "found";
  r.walk_set = 0x10000;
  r.walk_words.cped_slot = 0x4000 + cped_at;
  OtelRecord record;
  record.address = 0x20000;
  record.valid = 1;
  r.walk_record = record;
  if (hooks) r.otel = record;
  ParcaThread p;
  p.native_read = true;
  p.native_set = hooks ? 0x10000 : 0;
  p.isolate_here = 0x4000;
  p.walk = parca_set != 0 && !hooks ? "found" : "failed to get v8 CPED address";
  p.set = parca_set;
  p.via = parca_set == 0 ? "" : hooks ? "custom_labels_current_set" : "its Node walk";
  r.parca = p;
  r.parca_set.address = parca_set;
  return r;
}

ThreadRead Idle(uint64_t cped_at) {
  ThreadRead r;
  r.walk = "no-frame";
  r.walk_words.cped_slot = 0x4000 + cped_at;
  ParcaThread p;
  p.native_read = true;
  p.isolate_here = 0x4000;
  p.walk = "failed to get v8 CPED address";
  r.parca = p;
  return r;
}

const ReaderVerdict& Of(const std::vector<ReaderVerdict>& vs, const char* name) {
  for (const ReaderVerdict& v : vs) {
    if (std::string(v.reader->name) == name) return v;
  }
  return vs.front();
}

using Answer = ReaderVerdict::Answer;

TEST(ReaderVerdicts, HooksOffOnNode24NewestParcaFindsNoIsolate) {
  const ThreadRead r = Labelled(false, 632, 0);
  const ProcessContext c = Context("nodejs_v1_dev");
  const std::vector<ReaderVerdict> v = Verdicts(Target(), Parca(24, 21), &c, {{7, &r}});
  EXPECT_EQ(Of(v, "abi-v1").answer, Answer::kSeesNothing);
  EXPECT_EQ(Of(v, "abi-v1").brief, "no: NULL without hooks");
  const ReaderVerdict& parca = Of(v, "parca");
  EXPECT_EQ(parca.answer, Answer::kSeesNothing);
  EXPECT_EQ(parca.brief, "no: g_current_isolate not in .dynsym");
  EXPECT_NE(parca.text.find("looks up _ZN2v88internal18g_current_isolate_E in .dynsym only on Node < "
                            "26; Node 24.21.0 has it only in .symtab"),
            std::string::npos)
      << parca.text;
  EXPECT_EQ(parca.todo.rfind("run with hooks on", 0), 0u) << parca.todo;
  EXPECT_NE(parca.todo.find("The reader would need: look up _ZN2v88internal18g_current_isolate_E in "
                            ".symtab on Node 24 too"),
            std::string::npos)
      << parca.todo;
  EXPECT_EQ(Of(v, "otel-tls").brief, "no: schema nodejs_v1_dev");
  EXPECT_EQ(Of(v, "otel-nodejs").answer, Answer::kSees);
  EXPECT_EQ(Of(v, "otel-nodejs").brief, "yes (its walk from otel_thread_ctx_nodejs_v1)");
}

TEST(ReaderVerdicts, HooksOffOnNode26ParcaReadsTheCpedAtTheWrongOffset) {
  const ThreadRead r = Labelled(false, 680, 0);
  const ProcessContext c = Context("nodejs_v1_dev");
  const ReaderVerdict parca = Of(Verdicts(Target(), Parca(26, 12), &c, {{7, &r}}), "parca");
  EXPECT_EQ(parca.answer, Answer::kSeesNothing);
  EXPECT_EQ(parca.brief, "no: CPED at +680, it reads +640");
  EXPECT_NE(parca.text.find("reads the CPED at isolate+640 on Node >= 25; Node 26.12.0 keeps it at +680"),
            std::string::npos)
      << parca.text;
  EXPECT_NE(parca.todo.find("The reader would need: cpedOffset 680 for Node 26.12.0"), std::string::npos);
}

TEST(ReaderVerdicts, WithNoThreadLabelledTheModeAndItsLookupDecide) {
  const ThreadRead idle = Idle(680);
  const ProcessContext off = Context("nodejs_v1_dev");
  EXPECT_EQ(Of(Verdicts(Target(), Parca(26, 12), &off, {{7, &idle}}), "parca").brief,
            "no: CPED at +680, it reads +640");
  // Hooks on: the current set, whatever its walk would do.
  const ProcessContext on = Context("tlsdesc_v1_dev");
  const std::vector<ReaderVerdict> v = Verdicts(Target(), Parca(26, 12), &on, {{7, &idle}});
  EXPECT_EQ(Of(v, "parca").answer, Answer::kSees);
  EXPECT_EQ(Of(v, "parca").brief, "yes (custom_labels_current_set)");
  EXPECT_EQ(Of(v, "abi-v1").brief, "yes (custom_labels_current_set)");
  // Where the walk reaches the frame, its set replaces the current one.
  const ThreadRead at632 = Idle(632);
  EXPECT_EQ(Of(Verdicts(Target(), Parca(24, 10), &on, {{7, &at632}}), "parca").brief,
            "yes (its Node walk)");
  // Nothing says the mode: no process context, nothing labelled.
  const std::vector<ReaderVerdict> unknown = Verdicts(Target(), Parca(26, 12), nullptr, {{7, &idle}});
  EXPECT_EQ(Of(unknown, "parca").answer, Answer::kCannotTell);
  EXPECT_EQ(Of(unknown, "otel-tls").answer, Answer::kSeesNothing);  // no process context at all
}

TEST(ReaderVerdicts, AReaderThatSeesAnotherSetIsWrongNotRight) {
  const ThreadRead r = Labelled(true, 632, 0x99000);
  const ProcessContext c = Context("tlsdesc_v1_dev");
  const ReaderVerdict parca = Of(Verdicts(Target(), Parca(24, 10), &c, {{7, &r}}), "parca");
  EXPECT_EQ(parca.answer, Answer::kWrong);
}

TEST(ReaderVerdicts, SomeThreadsSeenSomeNotIsPartly) {
  const ThreadRead seen = Labelled(true, 632, 0x10000);
  const ThreadRead missed = Labelled(false, 680, 0);
  const ProcessContext c = Context("nodejs_v1_dev");
  const ReaderVerdict parca = Of(Verdicts(Target(), Parca(26, 12), &c, {{7, &seen}, {8, &missed}}), "parca");
  EXPECT_EQ(parca.answer, Answer::kPartly);
  EXPECT_NE(parca.text.find("sees the labels of 1 of 2 labelled thread(s)"), std::string::npos) << parca.text;
}

TEST(ReaderSights, EachReaderSeesWhatItsOwnLookupReaches) {
  const ThreadRead r = Labelled(false, 632, 0x10000);
  const ProcessContext c = Context("nodejs_v1_dev");
  const std::vector<ReaderSight> s = ThreadSights(r, &c);
  EXPECT_FALSE(SightOf(s, KnownReaderId::kAbiV1).sees);
  EXPECT_EQ(SightOf(s, KnownReaderId::kAbiV1).why,
            "custom_labels_current_set is NULL: this thread runs without hooks");
  EXPECT_TRUE(SightOf(s, KnownReaderId::kParca).sees);
  EXPECT_EQ(SightOf(s, KnownReaderId::kParca).via, "its Node walk");
  EXPECT_FALSE(SightOf(s, KnownReaderId::kOtelTls).sees);
  EXPECT_TRUE(SightOf(s, KnownReaderId::kOtelNodejs).sees);
  EXPECT_EQ(SightOf(s, KnownReaderId::kOtelNodejs).address, 0x20000u);
  // --as: the set each label set reader records.
  EXPECT_EQ(SetSeenBy(r, FindKnownReader("parca")).address, 0x10000u);
  EXPECT_EQ(SetSeenBy(r, FindKnownReader("abi-v1")).address, 0u);
  EXPECT_EQ(SetSeenBy(r, nullptr).address, 0x10000u);
}

}  // namespace
}  // namespace customlabels::reader
