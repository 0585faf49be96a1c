// libFuzzer target: the reader's OpenTelemetry decoding from arbitrary
// bytes: thread context records (OTEP 4947) in arbitrary memory images and
// resolved through arbitrary key maps, the protobuf wire reader and a
// ProcessContext payload (OTEP 4719), the process context read by its
// publication protocol from an image; then everything printed of them.
//
// Oracle: no crash, leak or undefined behaviour (ASan, UBSan), and:
// - a record read asks for at most its 28-byte header and 65535 attribute
//   bytes; its entries fit in attrs_data_size; problems stay bounded;
// - resolved attributes have distinct key indexes, all in the key map;
// - the protobuf reader's fields lie within the message, in order;
// - a decoded payload keeps at most 256 keys and 16 problems;
// - a process context read asks for at most attempts x (header + 65536 +
//   timestamps) bytes;
// - JSON is valid UTF-8 with no raw control characters, text lines have
//   none but their newlines.
//
// The input: mode u8 (0 record, 1 payload, 2 process context), then
//   0: record address u64, a byte (even: resolve through the key map),
//      key count u8 and that many keys (length u8 and bytes; length 255:
//      not a string), then regions as in decode_fuzz (address u64, length u16,
//      bytes) up to the end;
//   1: the payload (the rest of the input);
//   2: header address u64, attempts u8, then regions.
//
// clang-format off
// fuzz-sources: src/reader/otel_record.cc src/reader/protobuf_reader.cc src/reader/any_value.cc src/reader/process_context.cc src/reader/otel_report.cc src/reader/otel_checks.cc src/reader/elf_checks.cc src/reader/elf_file.cc src/reader/abi_reader.cc src/reader/abi_names.cc src/reader/label_set_decoder.cc src/reader/format.cc src/reader/memory_image.cc src/reader/process.cc src/reader/file_bytes.cc src/reader/node_walk.cc src/core/node_walk.cc src/reader/parca_lookup.cc src/reader/reader_lookups.cc
// clang-format on
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

#include "fuzz_input.h"
#include "reader/any_value.h"
#include "reader/memory_image.h"
#include "reader/otel_checks.h"
#include "reader/otel_record.h"
#include "reader/otel_report.h"
#include "reader/process_context.h"
#include "reader/protobuf_reader.h"

namespace {

using fuzz::Counting;
using fuzz::Input;
using fuzz::Require;
using fuzz::ValidUtf8NoControls;

void Regions(Input* in, customlabels::reader::MemoryImage* image) {
  for (int i = 0; i < 16 && !in->done(); ++i) {
    const uint64_t at = in->U64();
    image->Add(at, in->Bytes(in->U16()));
  }
}

void CheckContext(const customlabels::reader::ProcessContext& c) {
  using namespace customlabels::reader;  // NOLINT(build/namespaces): this one function
  Require(c.problems.size() <= ProcessContext::kMaxProblems);
  Require(!c.key_map || c.key_map->size() <= ProcessContext::kMaxKeys);
  const std::string json = JsonProcessContext(c);
  Require(!json.empty() && json.front() == '{' && json.back() == '}' &&
          ValidUtf8NoControls(json, false));
  Require(ValidUtf8NoControls(TextProcessContext(c), true));
  for (const CheckLine& l : CheckProcessContext(c)) Require(ValidUtf8NoControls(l.text, false));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace customlabels::reader;  // NOLINT(build/namespaces): this one function
  Input in{data, size};
  const unsigned mode = in.Byte() % 3;
  if (mode == 0) {
    const uint64_t address = in.U64();
    const bool with_map = in.Byte() % 2 == 0;
    AttributeKeyMap keys;
    const unsigned count = in.Byte();
    for (unsigned i = 0; i < count; ++i) {
      const uint8_t length = in.Byte();
      if (length == 0xff) {
        keys.emplace_back(std::nullopt);
      } else {
        keys.emplace_back(in.Bytes(length));
      }
    }
    MemoryImage image;
    Regions(&in, &image);
    const Counting memory(image);
    const OtelRecord r = DecodeOtelRecord(memory, address);
    Require(memory.bytes <= OtelRecord::kHeaderBytes + 65535);
    Require(r.problems.size() <= OtelRecord::kMaxProblems);
    Require(r.ok() || r.entries.empty());
    uint64_t used = 0;
    for (const OtelRecord::Entry& e : r.entries) used += 2 + e.value.size();
    Require(used <= r.attrs_size);
    ProcessContext context;
    context.key_map = keys;
    const OtelView view = MakeOtelView(r, with_map ? &context : nullptr);
    std::set<unsigned> indexes;
    for (const OtelAttribute& a : view.attributes) {
      Require(indexes.insert(a.key_index).second);
      Require(a.key_index < keys.size() && keys[a.key_index] && *keys[a.key_index] == a.key);
    }
    Require(view.problems.size() <= OtelRecord::kMaxProblems);
    Require(ValidUtf8NoControls(JsonOtel(view), false));
    for (const std::string& l : TextOtelLines(view)) Require(ValidUtf8NoControls(l, false));
  } else if (mode == 1) {
    const std::string payload = in.Bytes(in.size);
    ProtoReader reader(payload);
    ProtoField f;
    size_t last = 0;
    bool first = true;
    while (reader.Next(&f)) {
      Require(first || f.offset > last);
      first = false;
      last = f.offset;
      if (f.wire == ProtoField::kLengthDelimited) {
        Require(f.bytes.data() >= payload.data() &&
                f.bytes.data() + f.bytes.size() <= payload.data() + payload.size());
      }
    }
    ProcessContext c;
    c.mapping = "[anon:OTEL_CTX]";
    if (DecodeProcessContextPayload(payload, &c)) Require(c.ok());
    CheckContext(c);
  } else {
    const uint64_t address = in.U64();
    const int attempts = 1 + in.Byte() % 4;
    MemoryImage image;
    Regions(&in, &image);
    const Counting memory(image);
    ProcessContext c = ReadProcessContext(memory, address, attempts, nullptr);
    Require(memory.bytes <=
            static_cast<uint64_t>(attempts) *
                (8 + ProcessContext::kHeaderBytes + ProcessContext::kMaxPayloadBytes + 8));
    Require(c.attempts >= 1 && c.attempts <= attempts);
    c.mapping = "/memfd:OTEL_CTX";
    CheckContext(c);
  }
  return 0;
}
