// libFuzzer target: the reader's label-set decoding from arbitrary memory
// images (regions of bytes or of one repeated byte, at any address, up to
// 2^64 long), arbitrary set pointers and TLS layouts, under arbitrary limits;
// then everything printed from it (inspect JSON and text, sample rows). The
// input layout (see Input) is simple enough to write seeds by hand.
//
// Oracle: no crash, leak or undefined behaviour (ASan, UBSan), and:
// - storage that runs past the end of the address space is an error, exactly
//   when it does;
// - the bytes asked of the memory stay within header + twice the labels'
//   storage + max_set_bytes (nothing is sized by what the target says);
// - no more labels than max_labels and count, no key or value longer than its
//   limit or its published length, kept bytes within max_set_bytes, and a
//   cut reported exactly when something was kept shorter than published;
// - the ABI view has unique keys and only labels that are not ignored;
// - JSON lines are valid UTF-8 with no raw control characters, text lines
//   have no control characters but their newlines.
//
// clang-format off
// fuzz-sources: src/reader/label_set_decoder.cc src/reader/label_views.cc src/reader/memory_image.cc src/reader/format.cc src/reader/reader_profiles.cc src/reader/report.cc src/reader/sample_table.cc src/reader/abi_reader.cc src/reader/abi_names.cc src/reader/process.cc src/reader/elf_file.cc src/reader/file_bytes.cc src/reader/otel_record.cc src/reader/otel_report.cc src/reader/process_context.cc src/reader/any_value.cc src/reader/protobuf_reader.cc src/reader/node_walk.cc src/core/node_walk.cc src/reader/parca_lookup.cc src/reader/reader_lookups.cc
// clang-format on
#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>

#include "fuzz_input.h"
#include "reader/abi_reader.h"
#include "reader/label_set_decoder.h"
#include "reader/label_views.h"
#include "reader/memory_image.h"
#include "reader/report.h"
#include "reader/sample_table.h"

using fuzz::Counting;
using fuzz::Input;
using fuzz::Require;
using fuzz::ValidUtf8NoControls;

// The input, little-endian: mode u8, machine u8, limits 4 x u16, pointer,
// TLS argument, DTV module and offset 4 x u64, profile u8; then up to 16
// regions: address u64, kind u8, and either (odd kind) length u64 and fill
// byte u8, or length u16 and that many bytes. Reads past the end give zeros.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace customlabels::reader;  // NOLINT(build/namespaces): this one function
  Input in{data, size};
  const unsigned mode = in.Byte() % 3;  // 0: set pointer, 1: static TLS, 2: dynamic TLS
  AbiTarget target;
  target.machine = in.Byte() % 2 == 0 ? EM_X86_64 : EM_AARCH64;
  target.current_set.static_tls = mode == 1;
  ReadLimits limits;
  limits.max_labels = 1 + in.U16() % 200;
  limits.max_key_bytes = 1 + in.U16() % 300;
  limits.max_value_bytes = in.U16() % 301;
  limits.max_set_bytes = 1 + in.U16() % 2000;
  const uint64_t pointer = in.U64();  // the set, or the thread pointer
  target.current_set.argument = in.U64();
  target.current_set.dyn_module = 1 + in.U64() % 64;
  target.current_set.dyn_offset = in.U64();
  const unsigned profile = in.Byte() % 2;  // the default view, or the first profile's
  MemoryImage image;
  fuzz::AddRegions(&in, &image, 16);
  const Counting memory(image);
  const DecodedSet d = mode == 0 ? DecodeLabelSet(memory, pointer, limits)
                                 : ReadCurrentSet(target, pointer, memory, limits).set;

  Require(memory.bytes <= 24 + 64 * limits.max_labels + limits.max_set_bytes + 64);
  Require(d.problems.size() <= DecodedSet::kMaxProblems);
  Require(d.ok() || d.slots.empty());
  Require(d.slots.size() <= limits.max_labels && d.slots.size() <= d.count);
  Require(d.labels_cut != kLimitLabels ||
          (d.slots.size() == limits.max_labels && d.count > limits.max_labels));
  uint64_t kept = 0;
  for (size_t i = 0; i < d.slots.size(); ++i) {
    const Slot& s = d.slots[i];
    Require(s.index == i);
    Require(s.key.size() <= limits.max_key_bytes && s.key.size() <= s.key_length);
    Require(s.value.size() <= limits.max_value_bytes && s.value.size() <= s.value_length);
    if (!s.ignored()) {
      Require((s.key_cut != kLimitNone) == (s.key.size() < s.key_length));
      Require((s.value_cut != kLimitNone) == (s.value.size() < s.value_length));
    }
    kept += s.key.size() + s.value.size();
  }
  Require(kept <= limits.max_set_bytes);

  // Storage that would run past the end of the address space is an error,
  // exactly then (computed here in 128 bits).
  if (d.count != 0 && d.storage != 0 && d.error.rfind("cannot read the label set", 0) != 0) {
    const uint64_t to_read = std::min(d.count, limits.max_labels);
    const bool wraps = static_cast<unsigned __int128>(d.storage) + to_read * 32 >
                       static_cast<unsigned __int128>(UINT64_MAX) + 1;
    Require(wraps == (d.error.find("runs past the end of the address space") != std::string::npos));
  }

  const std::vector<Label> view = AbiView(d);
  std::set<std::pair<std::string, uint64_t>> keys;
  for (const Label& l : view) {
    Require(keys.emplace(l.key, l.key_length).second);
    Require(l.index < d.slots.size() && !d.slots[l.index].ignored());
  }
  const Truncation t = TruncationOf(d);
  Require(!d.ok() || t.labels_cut() == (d.slots.size() < d.count));

  {
    const ReaderProfile* selected = profile == 0 ? nullptr : &ReaderProfiles().front();
    const ThreadView v = MakeThreadView(1, "fuzz", d, selected);
    const std::string json = JsonThread(v);
    Require(json.back() == '\n' && ValidUtf8NoControls(json.substr(0, json.size() - 1), false));
    Require(ValidUtf8NoControls(TextThread(v), true));
    SampleTable table(4096);
    table.Add(1, "fuzz", MakeSampleRow(d, selected, std::nullopt));
    table.Add(1, "fuzz", MakeSampleRow(d, selected, std::string("k")));
    SampleRun run;
    for (const SampleTable::Thread& th : table.Threads()) {
      Require(ValidUtf8NoControls(JsonSampleThread(run, th), true));
      Require(ValidUtf8NoControls(TextSampleThread(run, th), true));
    }
  }
  return 0;
}
