#include "native_builder.h"

#include <new>

#include "process_context.h"
#include "scratch_build.h"

namespace customlabels::core {

namespace {

// One thread's builder: the storage BuildFromScratch reuses and the keys of
// the process context, cached for this thread.
struct ThreadBuilder final {
  ThreadBuilder() { builders.keys = &keys; }
  ThreadBuilder(const ThreadBuilder&) = delete;
  ThreadBuilder& operator=(const ThreadBuilder&) = delete;
  CachedProcessKeys keys;
  SetBuilders builders;
};

// The table's functions never throw: the unit calls them from V8 frames.
void* Create() noexcept {
  try {
    return new ThreadBuilder();
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

void Destroy(void* builder) noexcept { delete static_cast<ThreadBuilder*>(builder); }

int Build(void* builder, unsigned char* parent, size_t parent_size, uint32_t parent_offset,
          unsigned char* scratch, size_t scratch_size, uint32_t n, unsigned char* slab,
          size_t slab_size, uint32_t slab_offset) noexcept {
  return static_cast<int>(
      BuildFromScratch(&static_cast<ThreadBuilder*>(builder)->builders, {parent, parent_size},
                       parent_offset, {scratch, scratch_size}, n, {slab, slab_size}, slab_offset));
}

const char* Describe(int status, bool* type_error) noexcept {
  *type_error = false;
  switch (static_cast<BuildStatus>(status)) {
    case BuildStatus::kOk:
      return "";
    case BuildStatus::kBadParent:
      *type_error = true;
      return "not a customlabels label set";
    case BuildStatus::kScratchTooSmall:
      return "scratch too small";
    case BuildStatus::kScratchOverflow:
      return "scratch overflow";
    case BuildStatus::kBadTraceOp:
      return "unknown trace operation";
    case BuildStatus::kOutOfMemory:
      return "out of memory building the label set";
    case BuildStatus::kBadSlab:
      break;
  }
  return "slab offset misaligned or overlapping its inputs";
}

constexpr NativeBuilder kBuilder = {kNativeBuilderMagic,
                                    kNativeBuilderVersion,
                                    sizeof(NativeBuilder),
                                    Create,
                                    Destroy,
                                    Build,
                                    Describe};

}  // namespace

const NativeBuilder* GetNativeBuilder() { return &kBuilder; }

}  // namespace customlabels::core
