// libFuzzer target: the core label-set builder through the entry the
// binding's build() uses (BuildFromScratch), fed arbitrary scratch buffers,
// counts, slab sizes and offsets, parents and (overlapping) slabs.
//
// Oracle: whatever the input, no crash and no out-of-bounds access (ASan,
// UBSan); a set reported as written validates, is compact (count ==
// capacity, unique non-null keys, every byte inside the range it reported),
// and, for well-formed updates, holds exactly what a std::map model of
// "parent, then updates in order" holds.
//
// fuzz-sources: src/core/label_set_builder.cc src/core/scratch_build.cc
// fuzz-sources: src/core/thread_context_record.cc src/core/attribute_key_map.cc
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../cpp/scratch_test_util.h"
#include "core/label_set_builder.h"
#include "core/scratch_build.h"

namespace {

using customlabels::core::BuildFromScratch;
using customlabels::core::BuildStatus;
using customlabels::core::ByteSpan;
using customlabels::core::LabelSetBuilder;
using customlabels::core::LabelSetLayout;
using customlabels::core::ReadLabelSet;
using customlabels::core::testing::AlignedBytes;
using customlabels::core::testing::EncodeScratch;
using customlabels::core::testing::ReadResults;
using customlabels::core::testing::Update;

using Model = std::map<std::string, std::string>;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
  }
}

// Checks the set a successful build reported; returns it as a map.
Model CheckWritten(AlignedBytes& scratch, ByteSpan slab, uint32_t offset) {
  const auto r = ReadResults(scratch);
  Model out;
  if (r.address == 0) return out;
  Check(r.next != customlabels::core::scratch::kDidNotFit, "address reported but did not fit");
  Check(r.address == reinterpret_cast<uintptr_t>(slab.data + offset), "set not at the offset");
  Check(r.next % 8 == 0 && r.next >= offset + r.needed && r.next - offset - r.needed < 8,
        "next offset");
  const auto* set = LabelSetLayout::Validate(slab.data + offset, r.needed);
  Check(set != nullptr, "written set does not validate within its reported size");
  Check(set->count == set->capacity, "not compact");
  const auto view = ReadLabelSet(set);
  Check(view.size() == set->count, "null or duplicate keys in a written set");
  for (const auto& [k, v] : view) out.emplace(std::string(k), std::string(v));
  Check(out.size() == set->count, "duplicate keys");
  return out;
}

std::vector<Update> Updates(FuzzedDataProvider& in) {
  std::vector<Update> out;
  const size_t n = in.ConsumeIntegralInRange<size_t>(0, 24);
  for (size_t i = 0; i < n && in.remaining_bytes() > 0; ++i) {
    // Short keys from a small alphabet collide often (overrides, removals).
    std::string key = in.ConsumeBool()
                          ? std::string(1, static_cast<char>('a' + in.ConsumeIntegralInRange(0, 5)))
                          : in.ConsumeRandomLengthString(40);
    if (in.ConsumeIntegralInRange(0, 4) == 0) {
      out.emplace_back(std::move(key), std::nullopt);
    } else {
      out.emplace_back(std::move(key), in.ConsumeRandomLengthString(300));
    }
  }
  return out;
}

void Apply(Model& m, const std::vector<Update>& updates) {
  for (const auto& [k, v] : updates) {
    if (v) {
      m[k] = *v;
    } else {
      m.erase(k);
    }
  }
}

// Well-formed updates: parent built first, child merged over it in the same
// slab at an offset the input chooses (possibly overlapping the parent).
void Structured(FuzzedDataProvider& in) {
  customlabels::core::SetBuilders builder;
  AlignedBytes slab(in.ConsumeIntegralInRange<size_t>(0, 8192));
  const std::vector<Update> first = Updates(in);
  const std::vector<Update> second = Updates(in);
  AlignedBytes s1 = EncodeScratch(first);
  const auto n1 = static_cast<uint32_t>(first.size());
  Check(BuildFromScratch(&builder, {}, 0, s1.span(), n1, slab.span(), 0) == BuildStatus::kOk,
        "well-formed first build failed");
  Model model;
  Apply(model, first);
  const auto r1 = ReadResults(s1);
  if (r1.address == 0) {
    Check(model.empty() || r1.next == customlabels::core::scratch::kDidNotFit,
          "labels lost without a did-not-fit");
    return;
  }
  Check(CheckWritten(s1, slab.span(), 0) == model, "first set differs from the model");
  AlignedBytes s2 = EncodeScratch(second);
  const auto n2 = static_cast<uint32_t>(second.size());
  const uint32_t offset = in.ConsumeBool() ? r1.next : in.ConsumeIntegral<uint32_t>() % 8200;
  const BuildStatus status =
      BuildFromScratch(&builder, slab.span(), 0, s2.span(), n2, slab.span(), offset);
  Apply(model, second);
  if (status == BuildStatus::kBadSlab) {
    Check(offset % 8 != 0 || offset < r1.next, "kBadSlab without overlap or misalignment");
    return;
  }
  Check(status == BuildStatus::kOk, "well-formed second build failed");
  const auto r2 = ReadResults(s2);
  Check(r2.address == 0 || offset >= r1.next, "wrote over the parent set");
  if (r2.address == 0) {
    Check(model.empty() || r2.next == customlabels::core::scratch::kDidNotFit,
          "labels lost without a did-not-fit");
    return;
  }
  Check(CheckWritten(s2, slab.span(), offset) == model, "merged set differs from the model");
}

// Arbitrary bytes as scratch, parent slab and count.
void Raw(FuzzedDataProvider& in) {
  customlabels::core::SetBuilders builder;
  customlabels::core::testing::LocalKeys keys;
  builder.keys = &keys;
  const uint32_t n = in.ConsumeIntegral<uint32_t>();
  const uint32_t offset = in.ConsumeIntegralInRange<uint32_t>(0, 4200);
  const uint32_t parent_offset = in.ConsumeIntegralInRange<uint32_t>(0, 64);
  AlignedBytes parent(in.ConsumeIntegralInRange<size_t>(0, 256));
  const std::vector<uint8_t> parent_bytes = in.ConsumeBytes<uint8_t>(parent.size());
  std::copy(parent_bytes.begin(), parent_bytes.end(), parent.data());
  AlignedBytes slab(4096);
  const std::vector<uint8_t> rest = in.ConsumeRemainingBytes<uint8_t>();
  AlignedBytes scratch(rest.size());
  std::copy(rest.begin(), rest.end(), scratch.data());
  const ByteSpan parent_span = parent.size() == 0 ? ByteSpan{} : parent.span();
  const BuildStatus status = BuildFromScratch(&builder, parent_span, parent_offset, scratch.span(),
                                              n, slab.span(), offset);
  if (status == BuildStatus::kOk) CheckWritten(scratch, slab.span(), offset);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeBool()) {
    Structured(in);
  } else {
    Raw(in);
  }
  return 0;
}
