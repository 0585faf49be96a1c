// The reader's OpenTelemetry parts, on bytes built here: the thread context
// record (OTEP 4947) through the same TLS code as the labels, the protobuf
// wire reader and AnyValue, the process context (OTEP 4719) with its
// publication protocol, and what inspect, sample and check print of them.
#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "reader/abi_reader.h"
#include "reader/any_value.h"
#include "reader/memory_image.h"
#include "reader/otel_checks.h"
#include "reader/otel_record.h"
#include "reader/otel_report.h"
#include "reader/process_context.h"
#include "reader/protobuf_reader.h"
#include "reader/report.h"
#include "reader/sample_table.h"

namespace customlabels::reader {
namespace {

// ---- protobuf encoding, by hand ----
std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string Tag(uint32_t field, unsigned wire) { return Varint(uint64_t{field} << 3 | wire); }
std::string Len(uint32_t field, const std::string& bytes) {
  return Tag(field, 2) + Varint(bytes.size()) + bytes;
}
std::string Fixed64(uint32_t field, uint64_t v) {
  std::string out = Tag(field, 1);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}
// AnyValue / KeyValue messages.
std::string StrValue(const std::string& s) { return Len(1, s); }
std::string IntValue(int64_t v) { return Tag(3, 0) + Varint(static_cast<uint64_t>(v)); }
std::string ArrayValue(const std::vector<std::string>& values) {
  std::string array;
  for (const std::string& v : values) array += Len(1, v);
  return Len(5, array);
}
std::string StrArray(const std::vector<std::string>& strings) {
  std::vector<std::string> values;
  for (const std::string& s : strings) values.push_back(StrValue(s));
  return ArrayValue(values);
}
std::string Kv(const std::string& key, const std::string& any_value) {
  return Len(1, key) + Len(2, any_value);
}
// A ProcessContext: resource attributes, then attributes.
std::string Payload(const std::vector<std::string>& resource,
                    const std::vector<std::string>& attributes) {
  std::string r;
  for (const std::string& kv : resource) r += Len(1, kv);
  std::string out = Len(1, r);
  for (const std::string& kv : attributes) out += Len(2, kv);
  return out;
}
std::string GoodPayload() {
  return Payload({Kv("service.name", StrValue("checkout"))},
                 {Kv("threadlocal.schema_version", StrValue("tlsdesc_v1_dev")),
                  Kv("threadlocal.attribute_key_map", StrArray({"http.route", "user.id"})),
                  Kv("deployment.environment", StrValue("test"))});
}

// ---- thread context records ----
std::string Record(uint8_t valid, const std::string& attrs, uint8_t first_trace_byte = 0x4b,
                   uint16_t size_override = 0xffff) {
  std::string r(28, '\0');
  for (int i = 0; i < 16; ++i) r[static_cast<size_t>(i)] = static_cast<char>(first_trace_byte + i);
  if (first_trace_byte == 0) std::memset(&r[0], 0, 16);
  for (int i = 0; i < 8; ++i) r[16 + static_cast<size_t>(i)] = static_cast<char>(0xa0 + i);
  r[24] = static_cast<char>(valid);
  r[25] = 1;
  const uint16_t size =
      size_override != 0xffff ? size_override : static_cast<uint16_t>(attrs.size());
  std::memcpy(&r[26], &size, 2);
  return r + attrs;
}
std::string Entry(uint8_t index, const std::string& value) {
  return std::string(1, static_cast<char>(index)) +
         std::string(1, static_cast<char>(value.size())) + value;
}

constexpr uint64_t kRecord = 0x10000;

OtelRecord DecodeAt(const std::string& bytes, uint64_t at = kRecord) {
  MemoryImage m;
  m.Add(at, bytes);
  return DecodeOtelRecord(m, at);
}

AttributeKeyMap Keys(std::initializer_list<const char*> keys) {
  AttributeKeyMap map;
  for (const char* k : keys) map.emplace_back(k);
  return map;
}

TEST(OtelRecord, AValidRecordWithAttributes) {
  const OtelRecord r =
      DecodeAt(Record(1, Entry(0, "/users/:id") + Entry(1, "42") + Entry(0, "/orders")));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.has_context());
  EXPECT_TRUE(r.has_trace());
  EXPECT_EQ(HexBytes(r.trace_id.data(), 16), "4b4c4d4e4f505152535455565758595a");
  EXPECT_EQ(HexBytes(r.span_id.data(), 8), "a0a1a2a3a4a5a6a7");
  EXPECT_EQ(r.trace_flags, 1);
  ASSERT_EQ(r.entries.size(), 3u);
  EXPECT_TRUE(r.problems.empty());
  const AttributeKeyMap map = Keys({"http.route", "user.id"});
  std::vector<std::string> problems;
  uint64_t more = 0;
  const auto attrs = ResolveOtelAttributes(r, &map, &problems, &more);
  ASSERT_EQ(attrs.size(), 2u);
  // Order of first occurrence; the last value of a repeated index wins.
  EXPECT_EQ(attrs[0].key, "http.route");
  EXPECT_EQ(attrs[0].value, "/orders");
  EXPECT_EQ(attrs[1].key, "user.id");
  EXPECT_EQ(attrs[1].value, "42");
  EXPECT_TRUE(problems.empty());
}

TEST(OtelRecord, NullIsNoContextAndMisalignedOrInvalidRecordsAreIgnored) {
  MemoryImage empty;
  const OtelRecord none = DecodeOtelRecord(empty, 0);
  EXPECT_TRUE(none.ok());
  EXPECT_FALSE(none.has_context());
  MemoryImage m;
  m.Add(kRecord, std::string(1, '\0') + Record(1, Entry(0, "x")));
  EXPECT_EQ(DecodeOtelRecord(m, kRecord + 1).error,
            "record pointer 0x10001 is misaligned (records are 2-byte aligned)");
  EXPECT_EQ(DecodeAt(Record(0, Entry(0, "x"))).error, "valid is 0, not 1: the record is ignored");
  EXPECT_EQ(DecodeAt(Record(2, Entry(0, "x"))).error, "valid is 2, not 1: the record is ignored");
  EXPECT_EQ(DecodeAt(Record(1, "").substr(0, 27)).error,
            "cannot read the thread context record at 0x10000");
  // attrs_data_size says more than is readable.
  EXPECT_EQ(DecodeAt(Record(1, Entry(0, "x"), 0x4b, 100)).error,
            "cannot read the record's 100 attribute bytes at 0x1001c");
}

TEST(OtelRecord, EntriesCutByTheSizeAreProblemsAndTheRestIsKept) {
  const OtelRecord header_cut = DecodeAt(Record(1, Entry(0, "a") + "\x01"));
  ASSERT_TRUE(header_cut.ok());
  ASSERT_EQ(header_cut.entries.size(), 1u);
  EXPECT_EQ(header_cut.problems,
            std::vector<std::string>{
                "attrs_data ends inside an entry header at byte 3 of 4; the rest is ignored"});
  const OtelRecord value_cut = DecodeAt(Record(1, Entry(0, "a") + "\x01\x09" + "abc"));
  ASSERT_EQ(value_cut.entries.size(), 1u);
  EXPECT_EQ(value_cut.problems,
            std::vector<std::string>{"the entry at byte 3 (key index 1) needs 9 value bytes but "
                                     "attrs_data has 3 left; the rest is ignored"});
}

TEST(OtelRecord, OverTheRecommendationIsAProblemAndTheLargestRecordIsBounded) {
  std::string attrs;
  for (int i = 0; i < 3; ++i) attrs += Entry(static_cast<uint8_t>(i), std::string(255, 'v'));
  const OtelRecord big = DecodeAt(Record(1, attrs));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big.entries.size(), 3u);
  ASSERT_EQ(big.problems.size(), 1u);
  EXPECT_EQ(big.problems[0],
            "attrs_data_size 771 makes the record 799 bytes, over the OTEP's 640-byte "
            "recommendation (readers may drop it)");
  EXPECT_TRUE(DecodeAt(Record(1, std::string(612, '\0'))).problems.empty());
  EXPECT_EQ(DecodeAt(Record(1, std::string(614, '\0'))).problems.size(), 1u);
  // 65535 bytes of attrs: read whole, entries of zero-length values.
  const OtelRecord most = DecodeAt(Record(1, std::string(65535, '\0')));
  ASSERT_TRUE(most.ok());
  EXPECT_EQ(most.entries.size(), 32767u);
  EXPECT_EQ(most.problems.size(), 2u);  // over the recommendation, and one byte left over
}

TEST(OtelRecord, UnknownIndexesAreDroppedOnceEachAndBadUtf8IsNoted) {
  const OtelRecord r = DecodeAt(Record(
      1, Entry(0, "a") + Entry(7, "x") + Entry(7, "y") + Entry(1, "\xff\xfe") + Entry(2, "z")));
  AttributeKeyMap map = Keys({"k0", "k1"});
  map.emplace_back(std::nullopt);  // index 2: not a string in the key map
  std::vector<std::string> problems;
  uint64_t more = 0;
  const auto attrs = ResolveOtelAttributes(r, &map, &problems, &more);
  ASSERT_EQ(attrs.size(), 2u);
  EXPECT_EQ(problems,
            (std::vector<std::string>{
                "attribute key index 7 is outside the attribute key map (3 keys); dropped",
                "attribute key index 2 names an attribute key map element that is not a key; "
                "dropped",
                "value of attribute \"k1\" is not valid UTF-8"}));
  problems.clear();
  EXPECT_TRUE(ResolveOtelAttributes(r, nullptr, &problems, &more).empty());
  EXPECT_EQ(problems.size(), 4u);  // indexes 0, 7, 1, 2
  EXPECT_EQ(problems[0], "attribute key index 0 cannot be resolved: no attribute key map; dropped");
  // The notes are bounded.
  std::string many;
  for (int i = 0; i < 40; ++i) many += Entry(static_cast<uint8_t>(100 + i), "");
  problems.clear();
  more = 0;
  (void)ResolveOtelAttributes(DecodeAt(Record(1, many)), &map, &problems, &more);
  EXPECT_EQ(problems.size(), OtelRecord::kMaxProblems);
  EXPECT_EQ(more, 40 - OtelRecord::kMaxProblems);
}

TEST(OtelRecord, ReadThroughTheSameTlsCodeAsTheLabels) {
  MemoryImage m;
  m.Add(kRecord, Record(1, Entry(0, "v")));
  AbiTarget t;
  t.machine = EM_X86_64;
  t.otel = TlsVariable{};
  t.otel->static_tls = true;
  t.otel->argument = static_cast<uint64_t>(-8);
  const uint64_t tp = 0x7000040;
  const uint64_t slot = kRecord;
  m.Add(tp - 8, std::string(reinterpret_cast<const char*>(&slot), 8));
  const OtelRecord r = ReadOtelRecord(t, tp, m);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.address, kRecord);
  EXPECT_EQ(ReadOtelRecord(t, 0x9000000, m).error, "cannot read otel_thread_ctx_v1 at 0x8fffff8");
  // Dynamic TLS: module 2's block, not allocated in this thread: no context.
  t.otel = TlsVariable{};
  t.otel->dyn_module = 2;
  t.otel->dyn_offset = 0x8;
  const uint64_t tp2 = 0x700000, dtv = 0x800010;
  const uint64_t words[] = {dtv};
  m.Add(tp2 + 8, std::string(reinterpret_cast<const char*>(words), 8));
  const uint64_t dtv_words[] = {1, 0, 0, 0};  // length 1
  m.Add(dtv - 16, std::string(reinterpret_cast<const char*>(dtv_words), sizeof(dtv_words)));
  const OtelRecord none = ReadOtelRecord(t, tp2, m);
  EXPECT_TRUE(none.ok());
  EXPECT_FALSE(none.has_context());
  EXPECT_EQ(ReadOtelRecord(t, 0x100, m).error, "cannot read the thread's DTV at 0x108");
}

// ---- the protobuf wire reader ----
std::string ReadAll(const std::string& message, std::vector<ProtoField>* fields = nullptr) {
  ProtoReader r(message);
  ProtoField f;
  while (r.Next(&f)) {
    if (fields != nullptr) fields->push_back(f);
  }
  return r.error();
}

TEST(ProtoReader, FieldsOfEveryWireType) {
  std::vector<ProtoField> fields;
  const std::string message = Tag(1, 0) + Varint(300) + Fixed64(2, 0x0102030405060708) +
                              Len(3, "abc") + Tag(4, 5) + std::string("\x01\x00\x00\x00", 4) +
                              Tag(5, 0) + Varint(UINT64_MAX);
  EXPECT_EQ(ReadAll(message, &fields), "");
  ASSERT_EQ(fields.size(), 5u);
  EXPECT_EQ(fields[0].scalar, 300u);
  EXPECT_EQ(fields[1].scalar, 0x0102030405060708u);
  EXPECT_EQ(fields[2].bytes, "abc");
  EXPECT_EQ(fields[3].scalar, 1u);
  EXPECT_EQ(fields[4].scalar, UINT64_MAX);
}

TEST(ProtoReader, MalformedInputStopsWithWhatAndWhere) {
  EXPECT_EQ(ReadAll(Tag(1, 0) + "\x80\x80"), "truncated varint at byte 1");
  EXPECT_EQ(ReadAll(Tag(1, 0) + std::string(10, '\x80') + "\x01"),
            "varint longer than 10 bytes at byte 1");
  EXPECT_EQ(ReadAll(Tag(1, 0) + std::string(9, '\xff') + "\x02"),
            "varint overflows 64 bits at byte 1");
  EXPECT_EQ(ReadAll(Tag(1, 2) + Varint(10) + "abc"),
            "field 1 of length 10 runs past the end (3 bytes left) at byte 1");
  EXPECT_EQ(ReadAll(Tag(1, 2) + Varint(UINT64_MAX)),
            "field 1 of length 18446744073709551615 runs past the end (0 bytes left) at byte 1");
  EXPECT_EQ(ReadAll(Tag(1, 1) + "1234"), "truncated fixed64 at byte 1");
  EXPECT_EQ(ReadAll(Tag(1, 5) + "12"), "truncated fixed32 at byte 1");
  EXPECT_EQ(ReadAll(Tag(1, 6)), "invalid wire type 6 at byte 0");
  EXPECT_EQ(ReadAll(Tag(1, 7)), "invalid wire type 7 at byte 0");
  EXPECT_EQ(ReadAll(Tag(0, 0) + Varint(1)), "invalid field number at byte 0");
  EXPECT_EQ(ReadAll(Tag(3, 4)), "end group 3 outside any group at byte 0");
}

TEST(ProtoReader, GroupsAreSkippedWholeAndBounded) {
  std::vector<ProtoField> fields;
  const std::string group =
      Tag(9, 3) + Tag(1, 0) + Varint(5) + Tag(2, 3) + Len(1, "x") + Tag(2, 4) + Tag(9, 4);
  const std::string message = group + Len(1, "after");  // the fields point into it
  EXPECT_EQ(ReadAll(message, &fields), "");
  ASSERT_EQ(fields.size(), 1u);
  EXPECT_EQ(fields[0].bytes, "after");
  EXPECT_EQ(ReadAll(Tag(9, 3) + Tag(1, 0) + Varint(5)), "group 9 has no end at byte 1");
  EXPECT_EQ(ReadAll(Tag(9, 3) + Tag(8, 4)), "end group 8 in group 9 at byte 2");
  std::string deep, ends;
  for (int i = 0; i < 17; ++i) deep += Tag(1, 3);
  EXPECT_EQ(ReadAll(deep), "groups nested deeper than 16 at byte 17");
  std::string ok;
  for (int i = 0; i < 16; ++i) {
    ok += Tag(1, 3);
    ends += Tag(1, 4);
  }
  EXPECT_EQ(ReadAll(ok + ends), "");
}

// ---- AnyValue ----
AnyValue Decode(const std::string& message, std::string* error, ProtoBudget budget = {}) {
  AnyValue v;
  if (!DecodeAnyValue(message, 0, &budget, &v, error)) v.kind = AnyValue::Kind::kEmpty;
  return v;
}

TEST(AnyValue, EveryKindAsJsonAndText) {
  std::string error;
  const std::string kvlist =
      Len(6, Len(1, Kv("k", IntValue(-5))) + Len(1, Kv("b", Tag(2, 0) + Varint(1))));
  const std::string message =
      ArrayValue({StrValue("s\"1"), IntValue(-1), Fixed64(4, 0x3ff8000000000000),
                  Len(7, "\x01\xab"), "", Fixed64(4, 0x7ff8000000000000), kvlist});
  const AnyValue v = Decode(message, &error);
  ASSERT_EQ(error, "");
  EXPECT_EQ(JsonAnyValue(v), "[\"s\\\"1\",-1,1.5,\"01ab\",null,\"NaN\",{\"k\":-5,\"b\":true}]");
  EXPECT_EQ(TextAnyValue(v), "[s\"1, -1, 1.5, 0x01ab, (empty), nan, {k=-5, b=true}]");
  // A oneof: the last field wins; unknown fields are skipped.
  EXPECT_EQ(JsonAnyValue(Decode(StrValue("a") + Tag(20, 0) + Varint(1) + IntValue(7), &error)),
            "7");
}

TEST(AnyValue, WrongWireTypesDepthAndBudget) {
  std::string error;
  Decode(Tag(1, 0) + Varint(1), &error);
  EXPECT_EQ(error, "AnyValue field 1 at byte 0 has wire type varint");
  Decode(Tag(3, 2) + Varint(0), &error);
  EXPECT_EQ(error, "AnyValue field 3 at byte 0 has wire type length-delimited");
  std::string nested = StrValue("leaf");
  for (int i = 0; i < 16; ++i) nested = ArrayValue({nested});
  error.clear();
  EXPECT_EQ(Decode(nested, &error).kind, AnyValue::Kind::kArray);
  EXPECT_EQ(error, "");
  Decode(ArrayValue({nested}), &error);
  EXPECT_EQ(error, "values nested deeper than 16");
  std::vector<std::string> many(100, StrValue("x"));
  ProtoBudget small;
  small.values = 50;
  Decode(ArrayValue(many), &error, small);
  EXPECT_EQ(error, "more values than the reader decodes");
  Decode(ArrayValue({StrValue("x")}) + Tag(1, 2) + Varint(9), &error);
  EXPECT_EQ(error, "AnyValue: field 1 of length 9 runs past the end (0 bytes left) at byte 8");
}

// ---- the process context payload ----
TEST(ProcessContextPayload, ResourceAttributesSchemaAndKeyMap) {
  ProcessContext c;
  const std::string payload = GoodPayload() + Tag(15, 0) + Varint(3) + Fixed64(16, 1);
  ASSERT_TRUE(DecodeProcessContextPayload(payload, &c)) << c.error;
  EXPECT_EQ(JsonKeyValues(c.resource), "{\"service.name\":\"checkout\"}");
  EXPECT_EQ(JsonKeyValues(c.attributes), "{\"deployment.environment\":\"test\"}");
  EXPECT_TRUE(c.schema_accepted());
  ASSERT_TRUE(c.key_map);
  EXPECT_EQ(*c.key_map, Keys({"http.route", "user.id"}));
  EXPECT_TRUE(c.problems.empty());
}

TEST(ProcessContextPayload, FaultsOfTheKeyMapAndSchemaAreProblems) {
  ProcessContext c;
  ASSERT_TRUE(DecodeProcessContextPayload(
      Payload({}, {Kv("threadlocal.schema_version", StrValue("tlsdesc_v2")),
                   Kv("threadlocal.attribute_key_map",
                      ArrayValue({StrValue("a"), StrValue(""), IntValue(1), StrValue("a")}))}),
      &c));
  EXPECT_FALSE(c.schema_accepted());
  EXPECT_EQ(
      c.problems,
      (std::vector<std::string>{
          "attribute key map element 1 is an empty string",
          "attribute key map element 2 is not a string_value",
          "attribute key map element 3 repeats key \"a\"",
          "threadlocal.schema_version is \"tlsdesc_v2\"; readers accept \"tlsdesc_v1_dev\" or \"nodejs_v1_dev\""}));
  ASSERT_EQ(c.key_map->size(), 4u);
  EXPECT_FALSE((*c.key_map)[2]);
  const std::vector<CheckLine> lines = CheckProcessContext([&] {
    ProcessContext copy = c;
    copy.mapping = "[anon:OTEL_CTX]";
    return copy;
  }());
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_FALSE(lines[3].pass);
  EXPECT_EQ(lines[3].text, "threadlocal.schema_version is \"tlsdesc_v1_dev\" (\"tlsdesc_v2\")");
  EXPECT_FALSE(lines[4].pass);
  EXPECT_EQ(lines[4].text,
            "threadlocal.attribute_key_map is an array of at most 256 distinct non-empty strings "
            "(1 not string_value, 1 empty, 1 repeated)");

  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i) keys.push_back("k" + std::to_string(i));
  ProcessContext over;
  ASSERT_TRUE(DecodeProcessContextPayload(
      Payload({}, {Kv("threadlocal.attribute_key_map", StrArray(keys))}), &over));
  EXPECT_EQ(over.key_map->size(), 256u);
  EXPECT_EQ(over.key_map_count, 300u);
  EXPECT_EQ(over.problems,
            std::vector<std::string>{"the attribute key map has 300 keys; key indexes are one "
                                     "byte, so only the first 256 are used"});
  const auto over_lines = CheckProcessContext(over);
  EXPECT_EQ(over_lines[3].text, "threadlocal.schema_version is \"tlsdesc_v1_dev\" (missing)");
  EXPECT_EQ(over_lines[4].text,
            "threadlocal.attribute_key_map is an array of at most 256 distinct non-empty strings "
            "(300 keys, over 256)");

  ProcessContext not_array;
  ASSERT_TRUE(DecodeProcessContextPayload(
      Payload({}, {Kv("threadlocal.attribute_key_map", StrValue("a,b"))}), &not_array));
  EXPECT_FALSE(not_array.key_map);
  EXPECT_EQ(CheckProcessContext(not_array)[4].text,
            "threadlocal.attribute_key_map is an array of at most 256 distinct non-empty strings "
            "(not an array_value)");
}

TEST(ProcessContextPayload, MalformedPayloadsAreErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {GoodPayload() + "\x12\x80", "ProcessContext: truncated varint at byte "},
      {Len(2, Len(1, "k") + Tag(2, 2) + Varint(50)), "KeyValue: field 2 of length 50"},
      {Tag(1, 0) + Varint(1), "ProcessContext field 1 at byte 0 has wire type varint"},
      {Len(1, Len(1, Kv("k", Tag(5, 0) + Varint(1)))), "AnyValue field 5 at byte 0"},
      {Len(2, std::string("\x0a\x05\xff", 3)), "KeyValue: field 1 of length 5 runs past"},
  };
  for (const auto& [payload, error] : cases) {
    ProcessContext c;
    EXPECT_FALSE(DecodeProcessContextPayload(payload, &c));
    EXPECT_NE(c.error.find("the payload does not decode: " + error), std::string::npos) << c.error;
    EXPECT_TRUE(c.resource.empty());
  }
}

// ---- reading by the publication protocol ----
constexpr uint64_t kHeader = 0x20000, kPayload = 0x30000;

std::string Header(const char* signature, uint32_t version, uint32_t size, uint64_t ts,
                   uint64_t payload = kPayload) {
  std::string h(32, '\0');
  std::memcpy(&h[0], signature, 8);
  std::memcpy(&h[8], &version, 4);
  std::memcpy(&h[12], &size, 4);
  std::memcpy(&h[16], &ts, 8);
  std::memcpy(&h[24], &payload, 8);
  return h;
}

// Memory over two buffers the test owns, with a hook run before every read
// (the n-th read, from 1): a writer at work between the reader's reads.
class Published final : public MemorySource {
 public:
  Published(std::string header, std::string payload)
      : header_(std::move(header)), payload_(std::move(payload)) {
    payload_.resize(ProcessContext::kMaxPayloadBytes + 16, '\0');
  }
  bool Read(uint64_t address, void* out, size_t size) const override {
    ++reads;
    if (hook) hook(reads);
    MemoryImage m;
    m.AddView(kHeader, header_.data(), header_.size());
    m.AddView(kPayload, payload_.data(), payload_.size());
    return m.Read(address, out, size);
  }
  void SetTs(uint64_t ts) { std::memcpy(&header_[16], &ts, 8); }
  void SetPayload(const std::string& p, uint32_t size) {
    std::memcpy(&payload_[0], p.data(), p.size());
    std::memcpy(&header_[12], &size, 4);
  }
  mutable int reads = 0;
  std::function<void(int)> hook;

 private:
  std::string header_, payload_;
};

TEST(ReadProcessContext, AWellFormedContext) {
  const std::string payload = GoodPayload();
  const Published m(Header("OTEL_CTX", 2, static_cast<uint32_t>(payload.size()), 1234), payload);
  ProcessContext c = ReadProcessContext(m, kHeader, 5, nullptr);
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_EQ(c.attempts, 1);
  EXPECT_EQ(m.reads, 4);  // timestamp, header, payload, timestamp
  c.mapping = "/memfd:OTEL_CTX (deleted)";
  EXPECT_EQ(JsonProcessContext(c),
            "{\"mapping\":\"/memfd:OTEL_CTX (deleted)\",\"address\":"
            "\"0x20000\",\"version\":2,\"published_at\":1234,\"payload\":\"0x30000\","
            "\"payload_size\":" +
                std::to_string(payload.size()) +
                ",\"schema_version\":\"tlsdesc_v1_dev\",\"attribute_key_map\":[\"http.route\","
                "\"user.id\"],\"resource\":{\"service.name\":\"checkout\"},\"attributes\":{"
                "\"deployment.environment\":\"test\"}}");
  EXPECT_EQ(TextProcessContext(c),
            "process context: /memfd:OTEL_CTX (deleted) at 0x20000: version 2, published at 1234 "
            "ns, schema tlsdesc_v1_dev\n"
            "  resource: service.name=checkout\n"
            "  attributes: deployment.environment=test\n"
            "  attribute keys: 0=http.route 1=user.id\n");
  for (const CheckLine& l : CheckProcessContext(c)) EXPECT_TRUE(l.pass) << l.text;
}

TEST(ReadProcessContext, BadHeadersAreErrors) {
  const std::string p = GoodPayload();
  const auto size = static_cast<uint32_t>(p.size());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {Header("OTEL_CTY", 2, size, 1), "the signature is \"OTEL_CTY\", not \"OTEL_CTX\""},
      {Header("OTEL_CTX", 1, size, 1), "version 1: this reader reads version 2"},
      {Header("OTEL_CTX", 2, 0, 1), "payload_size 0 is not 1 to 65536"},
      {Header("OTEL_CTX", 2, 65537, 1), "payload_size 65537 is not 1 to 65536"},
      {Header("OTEL_CTX", 2, size, 1, 0xdead0000),
       "cannot read the " + std::to_string(size) + "-byte payload at 0xdead0000"},
      {Header("OTEL_CTX", 2, size, 0),
       "the process context was being updated (published_at 0) in "
       "3 attempts"},
  };
  for (const auto& [header, error] : cases) {
    const Published m(header, p);
    EXPECT_EQ(ReadProcessContext(m, kHeader, 3, nullptr).error, error);
  }
  const Published m(Header("OTEL_CTX", 2, size, 1), p);
  EXPECT_EQ(ReadProcessContext(m, kHeader + 0x100000, 3, nullptr).error,
            "cannot read the process context header at 0x120000");
  // The largest payload is read whole.
  Published big(Header("OTEL_CTX", 2, 65536, 1), p);
  const ProcessContext c = ReadProcessContext(big, kHeader, 3, nullptr);
  EXPECT_NE(c.error.find("the payload does not decode"), std::string::npos) << c.error;
}

TEST(ReadProcessContext, AWriterAtWorkIsWaitedForAndNeverMixedIn) {
  const std::string a = Payload({Kv("service.name", StrValue("writer-a"))}, {});
  const std::string b = Payload({Kv("service.name", StrValue("writer-b"))}, {});
  Published m(Header("OTEL_CTX", 2, static_cast<uint32_t>(a.size()), 100), a);
  // While the reader reads the payload, a writer publishes b: timestamp 0,
  // payload, new timestamp. The reader sees the change and reads again.
  m.hook = [&m, &b](int read) {
    if (read == 3) {
      m.SetTs(0);
      m.SetPayload(b, static_cast<uint32_t>(b.size()));
      m.SetTs(200);
    }
  };
  int pauses = 0;
  static int* counter;
  counter = &pauses;
  ProcessContext c = ReadProcessContext(m, kHeader, 5, [] { ++*counter; });
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_EQ(c.attempts, 2);
  EXPECT_EQ(pauses, 1);
  EXPECT_EQ(c.published_at, 200u);
  EXPECT_EQ(JsonKeyValues(c.resource), "{\"service.name\":\"writer-b\"}");
  EXPECT_NE(JsonProcessContext(c).find(",\"attempts\":2"), std::string::npos);

  // Caught mid-update (timestamp 0) on the first read, done by the second.
  Published mid(Header("OTEL_CTX", 2, static_cast<uint32_t>(a.size()), 0), a);
  mid.hook = [&mid](int read) {
    if (read == 2) mid.SetTs(300);
  };
  c = ReadProcessContext(mid, kHeader, 5, nullptr);
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_EQ(c.attempts, 2);
  EXPECT_EQ(c.published_at, 300u);

  // A writer that never stops: bounded attempts, then an error.
  Published busy(Header("OTEL_CTX", 2, static_cast<uint32_t>(a.size()), 1), a);
  busy.hook = [&busy](int read) { busy.SetTs(static_cast<uint64_t>(read)); };
  c = ReadProcessContext(busy, kHeader, 4, nullptr);
  EXPECT_EQ(c.error, "the process context kept changing while read, 4 attempts");
  EXPECT_EQ(busy.reads, 16);
}

TEST(ProcessContextMapping, ByNameAndNotExecutable) {
  auto mapping = [](const char* path, const char* perms, bool deleted) {
    Mapping m;
    m.path = path;
    m.perms = perms;
    m.deleted = deleted;
    return m;
  };
  EXPECT_TRUE(IsProcessContextName(mapping("/memfd:OTEL_CTX", "r--p", true)));
  EXPECT_TRUE(IsProcessContextName(mapping("/memfd:OTEL_CTX", "r--p", false)));
  EXPECT_TRUE(IsProcessContextName(mapping("[anon_shmem:OTEL_CTX]", "r--s", false)));
  EXPECT_TRUE(IsProcessContextName(mapping("[anon:OTEL_CTX]", "rw-p", false)));
  EXPECT_FALSE(IsProcessContextName(mapping("[anon:OTEL_CTX2]", "rw-p", false)));
  EXPECT_FALSE(IsProcessContextName(mapping("/tmp/OTEL_CTX", "rw-p", false)));
  EXPECT_FALSE(IsProcessContextName(mapping("/memfd:otel_ctx", "rw-p", true)));
  const std::vector<Mapping> maps = {mapping("[anon:OTEL_CTX]", "r-xp", false),
                                     mapping("/lib/x.so", "r--p", false),
                                     mapping("[anon:OTEL_CTX]", "r--p", false)};
  EXPECT_EQ(FindProcessContextMapping(maps), &maps[2]);
  EXPECT_EQ(FindProcessContextMapping({maps[0], maps[1]}), nullptr);
}

// ---- what inspect and sample print ----
TEST(OtelReport, AThreadsRecordInJsonAndText) {
  ProcessContext c;
  ASSERT_TRUE(DecodeProcessContextPayload(GoodPayload(), &c));
  const OtelRecord r = DecodeAt(Record(1, Entry(0, "/users/:id") + Entry(1, "42") + Entry(9, "?")));
  ThreadView v;
  v.tid = 7;
  v.name = "worker";
  v.otel = MakeOtelView(r, &c);
  EXPECT_EQ(JsonOtel(*v.otel),
            "{\"record\":\"0x10000\",\"trace_id\":\"4b4c4d4e4f505152535455565758595a\","
            "\"span_id\":\"a0a1a2a3a4a5a6a7\",\"trace_flags\":1,\"attributes\":{\"http.route\":"
            "\"/users/:id\",\"user.id\":\"42\"},\"problems\":[\"attribute key index 9 is outside "
            "the attribute key map (2 keys); dropped\"]}");
  EXPECT_EQ(TextThread(v),
            "  7        worker           (none)\n"
            "                            otel trace 4b4c4d4e4f505152535455565758595a span "
            "a0a1a2a3a4a5a6a7 flags 01: http.route=/users/:id user.id=42\n"
            "                            ! otel problem: attribute key index 9 is outside the "
            "attribute key map (2 keys); dropped\n");
  const OtelView no_trace = MakeOtelView(DecodeAt(Record(1, Entry(1, "7"), 0)), &c);
  EXPECT_EQ(JsonOtel(no_trace),
            "{\"record\":\"0x10000\",\"trace_id\":null,\"span_id\":null,\"trace_flags\":1,"
            "\"attributes\":{\"user.id\":\"7\"}}");
  EXPECT_EQ(TextOtelLines(no_trace),
            std::vector<std::string>{"otel no trace, flags 01: user.id=7"});
  const OtelView invalid = MakeOtelView(DecodeAt(Record(0, "")), &c);
  EXPECT_EQ(JsonOtel(invalid),
            "{\"record\":\"0x10000\",\"error\":\"valid is 0, not 1: the record is ignored\"}");
  EXPECT_EQ(TextOtelLines(invalid),
            std::vector<std::string>{
                "! otel error: valid is 0, not 1: the record is ignored (record 0x10000)"});
  OtelRecord slot;
  slot.error = "cannot read otel_thread_ctx_v1 at 0x10";
  EXPECT_TRUE(ShowsOtel(slot));
  EXPECT_EQ(JsonOtel(MakeOtelView(slot, &c)),
            "{\"error\":\"cannot read otel_thread_ctx_v1 at 0x10\"}");
  EXPECT_FALSE(ShowsOtel(OtelRecord{}));
  // Bytes that are not UTF-8 are escaped as everywhere else.
  const OtelView bad = MakeOtelView(DecodeAt(Record(1, Entry(0, "\xff"))), &c);
  EXPECT_NE(JsonOtel(bad).find("\"http.route\":\"\\udcff\""), std::string::npos);
  EXPECT_EQ(TextOtelLines(bad)[0].substr(TextOtelLines(bad)[0].size() - 15), "http.route=\\xff");
}

TEST(OtelReport, SampleRowsByAttributesCountingTraces) {
  const AttributeKeyMap map = Keys({"http.route"});
  SampleTable table;
  DecodedSet none;  // no labels
  for (int i = 0; i < 4; ++i) {
    SampleRow row = MakeSampleRow(none, nullptr, std::nullopt);
    // Two samples of trace 0x10.., two of 0x20..; all on route /a.
    AddOtelSample(&row, DecodeAt(Record(1, Entry(0, "/a"), i < 2 ? 0x10 : 0x20)), &map);
    table.Add(1, "t", std::move(row));
  }
  SampleRow untraced = MakeSampleRow(none, nullptr, std::nullopt);
  AddOtelSample(&untraced, DecodeAt(Record(1, Entry(0, "/b"), 0)), &map);
  table.Add(1, "t", std::move(untraced));
  SampleRow without = MakeSampleRow(none, nullptr, std::nullopt);
  AddOtelSample(&without, OtelRecord{}, &map);  // no context: no otel part
  EXPECT_FALSE(without.otel);
  table.Add(1, "t", std::move(without));
  const auto threads = table.Threads();
  ASSERT_EQ(threads.size(), 1u);
  ASSERT_EQ(threads[0].rows.size(), 3u);
  EXPECT_EQ(threads[0].rows[0]->samples, 4u);
  EXPECT_EQ(threads[0].rows[0]->traced, 4u);
  EXPECT_EQ(threads[0].rows[0]->trace_ids.size(), 2u);
  SampleRun run;
  EXPECT_EQ(JsonSampleThread(run, threads[0]),
            "{\"tid\":1,\"name\":\"t\",\"samples\":4,\"thread_samples\":6,\"ticks\":0,\"late_ticks\":0,\"share\":0.666667,"
            "\"labels\":null,\"otel\":{\"attributes\":{\"http.route\":\"/a\"},\"traced_samples\":4,"
            "\"trace_ids\":2}}\n"
            "{\"tid\":1,\"name\":\"t\",\"samples\":1,\"thread_samples\":6,\"ticks\":0,\"late_ticks\":0,\"share\":0.166667,"
            "\"labels\":null,\"otel\":{\"attributes\":{\"http.route\":\"/b\"},\"traced_samples\":0,"
            "\"trace_ids\":0}}\n"
            "{\"tid\":1,\"name\":\"t\",\"samples\":1,\"thread_samples\":6,\"ticks\":0,\"late_ticks\":0,\"share\":0.166667,"
            "\"labels\":null}\n");
  EXPECT_EQ(TextSampleThread(run, threads[0]),
            "\nthread 1 (t): 6 samples\n"
            "    share  samples  labels\n"
            "    66.7%        4  (no labels) | otel http.route=/a (2 traces in 4 samples)\n"
            "    16.7%        1  (no labels) | otel http.route=/b\n"
            "    16.7%        1  (no labels)\n");
}

TEST(OtelReport, TraceIdsPerRowAreBounded) {
  const AttributeKeyMap map = Keys({"k"});
  SampleTable table(1 << 20);
  for (int i = 0; i < 3000; ++i) {
    std::string rec = Record(1, Entry(0, "v"));
    std::memcpy(&rec[0], &i, sizeof(i));
    SampleRow row;
    AddOtelSample(&row, DecodeAt(rec), &map);
    table.Add(1, "t", std::move(row));
  }
  const auto threads = table.Threads();
  ASSERT_EQ(threads[0].rows.size(), 1u);
  EXPECT_EQ(threads[0].rows[0]->traced, 3000u);
  EXPECT_EQ(threads[0].rows[0]->trace_ids.size(), SampleTable::kMaxTraceIds);
  EXPECT_TRUE(threads[0].rows[0]->trace_ids_capped);
  EXPECT_NE(TextSampleOtel(*threads[0].rows[0]).find("(1024+ traces in 3000 samples)"),
            std::string::npos);
}

}  // namespace
}  // namespace customlabels::reader
