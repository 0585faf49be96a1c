// What inspect and sample print, exactly, for decoded sets built in memory:
// labels, truncation (which label, published length against kept), problems,
// per-thread errors and profile notes; and the sample aggregation.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>

#include "reader/label_set_decoder.h"
#include "reader/memory_image.h"
#include "reader/report.h"
#include "reader/sample_table.h"

namespace customlabels::reader {
namespace {

struct Builder {
  MemoryImage memory;
  uint64_t next = 0x100000;
  uint64_t Bytes(const std::string& s) {
    const uint64_t at = next;
    memory.Add(at, s.empty() ? std::string(1, '\0') : s);
    next += (s.size() + 16) & ~uint64_t{7};
    return at;
  }
  uint64_t Fill(uint64_t size, char c) {
    const uint64_t at = next;
    memory.AddFill(at, size, static_cast<unsigned char>(c));
    next += (size + 16) & ~uint64_t{7};
    return at;
  }
  // labels: {key len, key buf, value len, value buf}
  uint64_t Set(uint64_t count, const std::vector<std::array<uint64_t, 4>>& labels) {
    std::string storage;
    for (const auto& l : labels) storage.append(reinterpret_cast<const char*>(l.data()), 32);
    const uint64_t s = Bytes(storage);
    const uint64_t header[3] = {s, count, count};
    return Bytes(std::string(reinterpret_cast<const char*>(header), 24));
  }
  DecodedSet Decode(uint64_t set, ReadLimits limits = {}) {
    return DecodeLabelSet(memory, set, limits);
  }
};

TEST(Report, APlainSetInJsonAndText) {
  Builder b;
  const uint64_t set =
      b.Set(2, {{1, b.Bytes("a"), 1, b.Bytes("1")}, {1, b.Bytes("b"), 1, b.Bytes("2")}});
  const ThreadView v = MakeThreadView(7, "worker", b.Decode(set), nullptr);
  char addr[32];
  std::snprintf(addr, sizeof(addr), "0x%llx", static_cast<unsigned long long>(set));
  EXPECT_EQ(JsonThread(v),
            "{\"tid\":7,\"name\":\"worker\",\"labels\":{\"a\":\"1\",\"b\":\"2\"},\"set\":\"" +
                std::string(addr) + "\"}\n");
  EXPECT_EQ(TextThread(v), "  7        worker           a=1 b=2\n");
}

TEST(Report, NoSetAndEmptySet) {
  Builder b;
  const ThreadView none = MakeThreadView(1, "main", b.Decode(0), nullptr);
  EXPECT_EQ(JsonThread(none), "{\"tid\":1,\"name\":\"main\",\"labels\":null,\"set\":\"0x0\"}\n");
  EXPECT_EQ(TextThread(none), "  1        main             (none)\n");
  const uint64_t empty = b.Set(0, {});
  const ThreadView e = MakeThreadView(1, "main", b.Decode(empty), nullptr);
  EXPECT_NE(JsonThread(e).find("\"labels\":{},"), std::string::npos);
}

TEST(Report, TruncationSaysWhichLabelAndHowMuchWasKept) {
  Builder b;
  const uint64_t big = b.Fill(256 << 20, 'V');
  const uint64_t key = b.Fill(1 << 30, 'K');
  const uint64_t set = b.Set(3, {{3, b.Bytes("big"), 256 << 20, big},
                                 {1 << 30, key, 2, b.Bytes("1g")},
                                 {1, b.Bytes("c"), 1, b.Bytes("3")}});
  ReadLimits limits;
  limits.max_labels = 2;
  limits.max_key_bytes = 4;
  limits.max_value_bytes = 5;
  const ThreadView v = MakeThreadView(9, "t", b.Decode(set, limits), nullptr);
  const std::string json = JsonThread(v);
  EXPECT_NE(json.find("\"labels\":{\"big\":\"VVVVV\",\"KKKK\":\"1g\"}"), std::string::npos) << json;
  EXPECT_NE(
      json.find("\"truncated\":{\"labels\":{\"count\":3,\"kept\":2,\"limit\":\"--max-labels\"},"
                "\"keys\":[{\"index\":1,\"key\":\"KKKK\",\"length\":1073741824,\"kept\":4,"
                "\"limit\":\"--max-key-bytes\"}],"
                "\"values\":[{\"index\":0,\"key\":\"big\",\"length\":268435456,\"kept\":5,"
                "\"limit\":\"--max-value-bytes\"}]}"),
      std::string::npos)
      << json;
  EXPECT_NE(json.find("\"parca\":[\"value of \\\"big\\\" is cut to 53 bytes (268435456)\","
                      "\"key \\\"KKKK...\\\" is cut to 25 bytes (1073741824)\"]"),
            std::string::npos)
      << json;
  const std::string indent(28, ' ');
  EXPECT_EQ(TextThread(v),
            "  9        t                big=VVVVV KKKK=1g\n" + indent +
                "! truncated: 2 of 3 labels read (--max-labels)\n" + indent +
                "! truncated: key of label 1 (\"KKKK...\"): 4 of 1073741824 bytes kept "
                "(--max-key-bytes)\n" +
                indent +
                "! truncated: value of \"big\" (label 0): 5 of 268435456 bytes kept "
                "(--max-value-bytes)\n" +
                indent + "! Parca agent: value of \"big\" is cut to 53 bytes (268435456)\n" +
                indent + "! Parca agent: key \"KKKK...\" is cut to 25 bytes (1073741824)\n");
}

TEST(Report, ErrorsAndProblemsPerThread) {
  Builder b;
  const ThreadView bad = MakeThreadView(3, "bad", b.Decode(0xdead000000000000), nullptr);
  EXPECT_EQ(JsonThread(bad),
            "{\"tid\":3,\"name\":\"bad\",\"set\":\"0xdead000000000000\",\"error\":\"cannot read "
            "the label set at 0xdead000000000000\"}\n");
  EXPECT_EQ(
      TextThread(bad),
      "  3        bad              ! error: cannot read the label set at 0xdead000000000000\n");
  // An error before the set pointer was known: no "set".
  DecodedSet tls;
  tls.error = "cannot read custom_labels_current_set at 0x10";
  EXPECT_EQ(JsonThread(MakeThreadView(4, "x", tls, nullptr)),
            "{\"tid\":4,\"name\":\"x\",\"error\":\"cannot read custom_labels_current_set at "
            "0x10\"}\n");
  const uint64_t set = b.Set(2, {{1, b.Bytes("a"), 0, 0}, {1, b.Bytes("b"), 1, b.Bytes("2")}});
  const ThreadView v = MakeThreadView(5, "nv", b.Decode(set), nullptr);
  EXPECT_NE(JsonThread(v).find("\"labels\":{\"b\":\"2\"}"), std::string::npos);
  EXPECT_NE(JsonThread(v).find("\"problems\":[\"label 0 (key \\\"a\\\"): value.buf is NULL, which "
                               "the ABI forbids; ignored\"]"),
            std::string::npos);
  EXPECT_EQ(TextThread(v), "  5        nv               b=2\n" + std::string(28, ' ') +
                               "! problem: label 0 (key \"a\"): value.buf is NULL, which the ABI "
                               "forbids; ignored\n");
}

TEST(Report, TooManyProblemsEndWithACount) {
  Builder b;
  const uint64_t k = b.Bytes("k");
  const uint64_t set = b.Set(20, std::vector<std::array<uint64_t, 4>>(20, {1, k, 0, 0}));
  const ThreadView v = MakeThreadView(5, "nv", b.Decode(set), nullptr);
  const std::string json = JsonThread(v);
  EXPECT_NE(json.find(",\"and 4 more problems\"]"), std::string::npos) << json;
  EXPECT_NE(TextThread(v).find("! problem: and 4 more\n"), std::string::npos);
}

TEST(Report, ASelectedProfileShowsItsViewAndNoNotes) {
  Builder b;
  const uint64_t set =
      b.Set(2, {{1, b.Bytes("a"), 60, b.Fill(60, 'v')}, {1, b.Bytes("a"), 1, b.Bytes("2")}});
  const ThreadView v = MakeThreadView(5, "p", b.Decode(set), FindReaderProfile("parca"));
  EXPECT_EQ(JsonThread(v).find("\"parca\""), std::string::npos);
  EXPECT_NE(JsonThread(v).find("\"labels\":{\"a\":\"2\"}"), std::string::npos);  // last wins
}

TEST(Report, NonUtf8BytesInEveryField) {
  Builder b;
  const uint64_t set = b.Set(1, {{2, b.Bytes("\xff\n"), 1, 0}});
  const ThreadView v = MakeThreadView(5, "n\xff", b.Decode(set), nullptr);
  EXPECT_EQ(JsonThread(v).substr(0, 30), "{\"tid\":5,\"name\":\"n\\udcff\",\"lab");
  EXPECT_NE(JsonThread(v).find("label 0 (key \\\"\\udcff\\n\\\")"), std::string::npos);
  EXPECT_NE(TextThread(v).find("label 0 (key \"\\xff\\x0a\")"), std::string::npos);
}

SampleRow Row(std::vector<Label> labels) {
  SampleRow r;
  r.has_set = true;
  r.labels = std::move(labels);
  return r;
}

TEST(SampleTable, CountsRowsPerThreadMostFirst) {
  SampleTable table;
  const Label a{"tenant", "a", 0, 6, 1}, c{"tenant", "c", 0, 6, 1};
  table.Add(20, "w", Row({a}));
  for (int i = 0; i < 3; ++i) table.Add(10, "main", Row({c}));
  table.Add(10, "main", Row({a}));
  table.Add(10, "main", SampleRow{});  // no set
  SampleRow error;
  error.error = "cannot read the label set at 0x8";
  table.Add(10, "main", error);
  EXPECT_EQ(table.total_samples(), 7u);
  EXPECT_EQ(table.failed_samples(), 1u);
  const auto threads = table.Threads();
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0].tid, 10);
  EXPECT_EQ(threads[0].samples, 6u);
  ASSERT_EQ(threads[0].rows.size(), 4u);
  EXPECT_EQ(threads[0].rows[0]->samples, 3u);
  EXPECT_EQ(threads[0].rows[0]->row.labels[0].value, "c");
  EXPECT_EQ(threads[0].rows[1]->row.labels[0].value, "a");  // ties: first seen first
  EXPECT_FALSE(threads[0].rows[2]->row.has_set);
  EXPECT_EQ(threads[0].rows[3]->row.error, "cannot read the label set at 0x8");
  SampleRun run;
  run.pid = 10;
  EXPECT_EQ(JsonSampleThread(run, threads[0]),
            "{\"tid\":10,\"name\":\"main\",\"samples\":3,\"thread_samples\":6,\"ticks\":0,\"late_ticks\":0,\"share\":0.500000,"
            "\"labels\":{\"tenant\":\"c\"}}\n"
            "{\"tid\":10,\"name\":\"main\",\"samples\":1,\"thread_samples\":6,\"ticks\":0,\"late_ticks\":0,\"share\":0.166667,"
            "\"labels\":{\"tenant\":\"a\"}}\n"
            "{\"tid\":10,\"name\":\"main\",\"samples\":1,\"thread_samples\":6,\"ticks\":0,\"late_ticks\":0,\"share\":0.166667,"
            "\"labels\":null}\n"
            "{\"tid\":10,\"name\":\"main\",\"samples\":1,\"thread_samples\":6,\"ticks\":0,\"late_ticks\":0,\"share\":0.166667,"
            "\"error\":\"cannot read the label set at 0x8\"}\n");
  EXPECT_EQ(TextSampleThread(run, threads[0]),
            "\nthread 10 (main): 6 samples\n"
            "    share  samples  labels\n"
            "    50.0%        3  tenant=c\n"
            "    16.7%        1  tenant=a\n"
            "    16.7%        1  (no labels)\n"
            "    16.7%        1  (error: cannot read the label set at 0x8)\n");
}

TEST(SampleTable, ByKeyKeepsThatLabelAndItsCutsOnly) {
  Builder b;
  const uint64_t set = b.Set(2, {{6, b.Bytes("tenant"), 100, b.Fill(100, 't')},
                                 {5, b.Bytes("route"), 100, b.Fill(100, 'r')}});
  ReadLimits limits;
  limits.max_value_bytes = 3;
  const DecodedSet d = b.Decode(set, limits);
  const SampleRow row = MakeSampleRow(d, nullptr, std::string("route"));
  ASSERT_TRUE(row.has_set);
  ASSERT_EQ(row.labels.size(), 1u);
  EXPECT_EQ(row.labels[0].value, "rrr");
  ASSERT_EQ(row.truncation.values.size(), 1u);
  EXPECT_EQ(row.truncation.values[0].key, "route");
  const SampleRow missing = MakeSampleRow(d, nullptr, std::string("customer"));
  EXPECT_FALSE(missing.has_set);
  EXPECT_TRUE(missing.truncation.values.empty());
  SampleTable table;
  table.Add(1, "m", row);
  table.Add(1, "m", missing);
  SampleRun run;
  run.by = "route";
  const auto threads = table.Threads();
  EXPECT_EQ(JsonSampleThread(run, threads[0]),
            "{\"tid\":1,\"name\":\"m\",\"samples\":1,\"thread_samples\":2,\"ticks\":0,\"late_ticks\":0,\"share\":0.500000,"
            "\"key\":\"route\",\"value\":\"rrr\",\"truncated\":{\"values\":[{\"index\":1,\"key\":"
            "\"route\",\"length\":100,\"kept\":3,\"limit\":\"--max-value-bytes\"}]}}\n"
            "{\"tid\":1,\"name\":\"m\",\"samples\":1,\"thread_samples\":2,\"ticks\":0,\"late_ticks\":0,\"share\":0.500000,"
            "\"key\":\"route\",\"value\":null}\n");
  EXPECT_EQ(
      TextSampleThread(run, threads[0]),
      "\nthread 1 (m): 2 samples\n"
      "    share  samples  route\n"
      "    50.0%        1  rrr\n" +
          std::string(20, ' ') +
          "! truncated: value of \"route\" (label 1): 3 of 100 bytes kept (--max-value-bytes)\n"
          "    50.0%        1  (no route)\n");
}

// With --by, samples of one value are one row, whatever else their sets
// hold (a client's tenant alone, a server's tenant with its RPC labels);
// samples without the key are one row too, set or no set.
TEST(SampleTable, ByKeyCountsOneRowPerValue) {
  Builder b;
  const uint64_t alone = b.Set(1, {{6, b.Bytes("tenant"), 4, b.Bytes("acme")}});
  const uint64_t with_rpc = b.Set(3, {{10, b.Bytes("rpc.method"), 3, b.Bytes("Get")},
                                      {6, b.Bytes("tenant"), 4, b.Bytes("acme")},
                                      {11, b.Bytes("rpc.service"), 1, b.Bytes("S")}});
  const uint64_t other = b.Set(1, {{5, b.Bytes("route"), 1, b.Bytes("/")}});
  SampleTable table;
  const std::optional<std::string> by("tenant");
  for (uint64_t set : {alone, with_rpc, with_rpc, other}) table.Add(1, "m", MakeSampleRow(b.Decode(set), nullptr, by));
  table.Add(1, "m", MakeSampleRow(b.Decode(0), nullptr, by));
  const auto threads = table.Threads();
  ASSERT_EQ(threads.size(), 1u);
  ASSERT_EQ(threads[0].rows.size(), 2u);
  EXPECT_EQ(threads[0].rows[0]->samples, 3u);
  EXPECT_EQ(threads[0].rows[0]->row.labels[0].value, "acme");
  EXPECT_EQ(threads[0].rows[1]->samples, 2u);
  EXPECT_FALSE(threads[0].rows[1]->row.has_set);
}

TEST(SampleTable, DistinctRowsStopBeingKeptAtTheBudget) {
  SampleTable table(64 << 10);  // 64 KiB
  const std::string value(4096, 'v');
  for (int i = 0; i < 100; ++i) {
    table.Add(1, "m", Row({{"k", value + std::to_string(i), 0, 1, 4097}}));
  }
  table.Add(1, "m", Row({{"k", value + "0", 0, 1, 4097}}));  // a kept row still counts
  EXPECT_LE(table.bytes_kept(), 64u << 10);
  const auto threads = table.Threads();
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads[0].samples, 101u);
  const SampleTable::Entry* other = nullptr;
  uint64_t kept_samples = 0, seen_twice = 0;
  for (const SampleTable::Entry* e : threads[0].rows) {
    if (e->row.other) {
      other = e;
    } else {
      kept_samples += e->samples;
      seen_twice += e->samples == 2;
    }
  }
  ASSERT_NE(other, nullptr);
  EXPECT_GT(other->samples, 80u);
  EXPECT_EQ(other->samples + kept_samples, 101u);
  EXPECT_EQ(seen_twice, 1u);  // the first row, seen again after the budget was spent
  SampleRun run;
  EXPECT_NE(JsonSampleThread(run, threads[0]).find("\"other\":true"), std::string::npos);
  EXPECT_NE(TextSampleThread(run, threads[0])
                .find("(other label sets, not kept: the sample's memory budget is spent)"),
            std::string::npos);
}

TEST(Report, SampleHeader) {
  SampleTable table;
  table.Add(1, "m", Row({}));
  SampleRun run;
  run.pid = 1;
  run.seconds = 1.04;
  run.hz = 99;
  run.tls = "static TLS, thread pointer -440";
  EXPECT_EQ(SampleHeader(run, table),
            "sampled process 1 for 1.0 s at 99 Hz: 1 on-CPU samples in 1 threads (static TLS, "
            "thread pointer -440)\n");
  // A reader that lost the CPU says how often, in the header and each JSON row.
  run.ticks = 99;
  run.late_ticks = 7;
  EXPECT_EQ(SampleHeader(run, table),
            "sampled process 1 for 1.0 s at 99 Hz: 1 on-CPU samples in 1 threads (static TLS, "
            "thread pointer -440); 7 of 99 ticks late (the reader lost the CPU)\n");
  const std::string json = JsonSampleThread(run, table.Threads()[0]);
  EXPECT_NE(json.find("\"ticks\":99,\"late_ticks\":7"), std::string::npos) << json;
}

}  // namespace
}  // namespace customlabels::reader
