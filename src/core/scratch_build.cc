#include "scratch_build.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string_view>

#include "scratch_protocol.h"

namespace customlabels::core {

static_assert(scratch::kSetSelfOffset == LabelSetLayout::kSelfOffset);
static_assert(scratch::kSetRecordOffset == LabelSetLayout::kRecordOffset);

namespace {

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// [begin, end) of every byte a set written by LabelSetBuilder occupies.
struct Extent {
  uintptr_t begin = 0, end = 0;
};

Extent ExtentOf(const custom_labels_labelset_t* set) {
  Extent e{Address(set), Address(set) + LabelSetLayout::kLabelsOffset};
  if (const otel_thread_ctx_record_t* r = LabelSetLayout::RecordOf(set)) {
    e.end = std::max(e.end, Address(r) + ThreadContextLimits::kHeaderBytes + r->attrs_data_size);
  }
  e.end = std::max(e.end, Address(set->storage) + set->count * sizeof(custom_labels_label_t));
  for (size_t i = 0; i < set->count; ++i) {
    const custom_labels_label_t& l = set->storage[i];
    e.end = std::max({e.end, Address(l.key.buf) + l.key.len, Address(l.value.buf) + l.value.len});
  }
  return e;
}

bool Overlaps(uintptr_t a, size_t a_size, uintptr_t b, size_t b_size) {
  return a_size != 0 && b_size != 0 && a < b + b_size && b < a + a_size;
}

void WriteResults(ByteSpan scratch, uint64_t address, uint32_t next, size_t needed,
                  uint64_t record = 0) {
  const uint32_t needed32 =
      static_cast<uint32_t>(std::min<size_t>(needed, scratch::kNeededSaturated));
  std::memcpy(scratch.data + scratch::kAddressOffset, &address, sizeof(address));
  std::memcpy(scratch.data + scratch::kNextOffsetOffset, &next, sizeof(next));
  std::memcpy(scratch.data + scratch::kNeededOffset, &needed32, sizeof(needed32));
  std::memcpy(scratch.data + scratch::kRecordAddressOffset, &record, sizeof(record));
}

// The trace ids the scratch header asks for; false if its trace byte is
// none of the protocol's values.
bool ReadTraceIds(const unsigned char* header, const custom_labels_labelset_t* parent,
                  TraceIds* ids) {
  *ids = TraceIds{};
  switch (header[scratch::kTraceOpOffset]) {
    case scratch::kTraceInherit:
      if (parent != nullptr) {
        if (const otel_thread_ctx_record_t* r = LabelSetLayout::RecordOf(parent)) {
          *ids = TraceIds::Of(r);
        }
      }
      return true;
    case scratch::kTraceSet:
      std::memcpy(ids->trace_id.data(), header + scratch::kTraceIdOffset, ids->trace_id.size());
      std::memcpy(ids->span_id.data(), header + scratch::kSpanIdOffset, ids->span_id.size());
      ids->trace_flags = header[scratch::kTraceFlagsOffset];
      return true;
    case scratch::kTraceClear:
      return true;
    default:
      return false;
  }
}

// Fills `builders->record` from the merged labels; false if there is to be
// no record (none asked for, none possible, or nothing in it).
bool CollectRecord(SetBuilders* builders, const TraceIds& ids) {
  AttributeKeys* keys = builders->keys;
  if (keys == nullptr || !keys->Available()) return false;
  ThreadContextRecordBuilder& record = builders->record;
  record.Reset(ids);
  const bool has_ids = !ids.none();
  builders->labels.ForEach([&](std::string_view key, std::string_view value) {
    if (has_ids && (key == "trace_id" || key == "span_id")) return;
    // (A value cut on a character boundary may take a byte or three less
    // than Fits() assumes: then it is only left out a little early.)
    // Only a key whose attribute goes in takes a place in the key map.
    if (!record.Fits(value.size()) || !IsUtf8(value)) return;
    const int index = keys->IndexOf(key);
    if (index >= 0) record.Add(static_cast<uint8_t>(index), value);
  });
  return !record.empty();
}

}  // namespace

const custom_labels_labelset_t* SetAt(ByteSpan slab, uint32_t offset, bool* valid) {
  *valid = true;
  if (slab.data == nullptr) return nullptr;
  const custom_labels_labelset_t* set =
      offset <= slab.size ? LabelSetLayout::Validate(slab.data + offset, slab.size - offset)
                          : nullptr;
  *valid = set != nullptr;
  return set;
}

namespace {

BuildStatus Build(SetBuilders* builders, ByteSpan parent_slab, uint32_t parent_offset,
                  ByteSpan scratch, uint32_t n, ByteSpan slab, uint32_t slab_offset) {
  LabelSetBuilder* const builder = &builders->labels;
  bool parent_valid = false;
  const custom_labels_labelset_t* parent = SetAt(parent_slab, parent_offset, &parent_valid);
  if (!parent_valid) return BuildStatus::kBadParent;
  unsigned char* const base = scratch.data;
  if (base == nullptr || scratch.size < scratch::kHeaderBytes ||
      (scratch.size - scratch::kHeaderBytes) / scratch::kEntryBytes < n) {
    return BuildStatus::kScratchTooSmall;
  }
  TraceIds ids;
  if (!ReadTraceIds(base, parent, &ids)) return BuildStatus::kBadTraceOp;
  const bool records = base[scratch::kRecordsOffset] == 1;
  size_t offset = scratch::kHeaderBytes + size_t{n} * scratch::kEntryBytes;
  builder->Reset(parent);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t lens[2];
    std::memcpy(lens, base + scratch::kHeaderBytes + size_t{i} * scratch::kEntryBytes,
                sizeof(lens));
    const bool remove = lens[1] == scratch::kValueRemoved;
    const size_t value_len = remove ? 0 : lens[1];
    if (lens[0] > scratch.size - offset || value_len > scratch.size - offset - lens[0]) {
      return BuildStatus::kScratchOverflow;
    }
    const std::string_view key(reinterpret_cast<const char*>(base + offset), lens[0]);
    offset += lens[0];
    if (remove) {
      builder->Remove(key);
    } else {
      builder->Set(key, {reinterpret_cast<const char*>(base + offset), value_len});
      offset += value_len;
    }
  }
  const bool has_record = records && CollectRecord(builders, ids);
  if (builder->count() == 0 && !has_record) {
    WriteResults(scratch, 0, slab_offset, 0);
    return BuildStatus::kOk;
  }
  const size_t record_offset = (builder->RequiredBytes() + 7) & ~size_t{7};
  const size_t size =
      has_record ? record_offset + builders->record.RequiredBytes() : builder->RequiredBytes();
  // The next offset must stay below kDidNotFit: (end + 7) & ~7 <= 0xfffffff8.
  constexpr size_t kMaxEnd = size_t{scratch::kDidNotFit} & ~size_t{7};
  if (slab.data == nullptr || slab_offset > slab.size || size > slab.size - slab_offset ||
      size > kMaxEnd - std::min<size_t>(slab_offset, kMaxEnd)) {
    WriteResults(scratch, 0, scratch::kDidNotFit, size);
    return BuildStatus::kOk;
  }
  unsigned char* const target = slab.data + slab_offset;
  // The builder holds views into the scratch buffer and the parent set while
  // it writes: the range written must overlap neither.
  const Extent p = parent == nullptr ? Extent{} : ExtentOf(parent);
  if (Address(target) % 8 != 0 || Overlaps(Address(target), size, Address(base), scratch.size) ||
      Overlaps(Address(target), size, p.begin, p.end - p.begin)) {
    return BuildStatus::kBadSlab;
  }
  custom_labels_labelset_t* set = builder->WriteTo(target, size);
  if (set == nullptr) return BuildStatus::kBadSlab;
  const otel_thread_ctx_record_t* record =
      has_record ? builders->record.WriteTo(target + record_offset, size - record_offset) : nullptr;
  LabelSetLayout::SetRecord(set, record);
  const auto next = static_cast<uint32_t>((size_t{slab_offset} + size + 7) & ~size_t{7});
  WriteResults(scratch, Address(set), next, size, Address(record));
  return BuildStatus::kOk;
}

}  // namespace

BuildStatus BuildFromScratch(SetBuilders* builders, ByteSpan parent_slab, uint32_t parent_offset,
                             ByteSpan scratch, uint32_t n, ByteSpan slab,
                             uint32_t slab_offset) noexcept {
  // Only the builders' storage (and the key map's) can throw, all before
  // anything is written to the slab; the next build resets them.
  try {
    return Build(builders, parent_slab, parent_offset, scratch, n, slab, slab_offset);
  } catch (const std::bad_alloc&) {
    return BuildStatus::kOutOfMemory;
  } catch (const std::length_error&) {
    return BuildStatus::kOutOfMemory;
  }
}

}  // namespace customlabels::core
