// The builder the N-API addon lends the V8 unit (src/v8/frame_access.cc), so
// that one call from lib/ both builds a label set and makes its wrapper
// object, with no second copy of the builder and no N-API call per set. The
// addon hands lib/ the table's address (binding.nativeBuilder()); lib/ gives
// it to the unit once per thread (unit.useBuilder()). Plain C types only:
// the unit is built per Node.js ABI and copies this header next to its
// sources (scripts/build-v8.js), so nothing here may need more than the
// standard library.
#ifndef CUSTOMLABELS_CORE_NATIVE_BUILDER_H_
#define CUSTOMLABELS_CORE_NATIVE_BUILDER_H_

#include <cstddef>
#include <cstdint>

namespace customlabels::core {

// "cl-build" in ASCII: the first word of the table, checked by the unit.
constexpr uint64_t kNativeBuilderMagic = 0x646c6975622d6c63ULL;
// Bumped on any change to the table or its functions' meaning.
constexpr uint32_t kNativeBuilderVersion = 2;

struct NativeBuilder final {
  uint64_t magic;
  uint32_t version;
  uint32_t size;  // sizeof(NativeBuilder)
  // None of the functions throws. A builder for one thread (its reused
  // storage and its cache of the process-wide attribute key map); nullptr if
  // out of memory.
  void* (*create)();
  void (*destroy)(void* builder);
  // BuildFromScratch (scratch_build.h) with `builder` from create(); returns
  // its BuildStatus as an int. A null `parent` is no parent.
  int (*build)(void* builder, unsigned char* parent, size_t parent_size, uint32_t parent_offset,
               unsigned char* scratch, size_t scratch_size, uint32_t n, unsigned char* slab,
               size_t slab_size, uint32_t slab_offset);
  // The error a status other than kOk (0) stands for, and whether it is a
  // TypeError (otherwise a RangeError): one wording for the addon's build()
  // and the unit's makeSet().
  const char* (*describe)(int status, bool* type_error);
};

// The addon's table (static, lives as long as the addon is mapped).
const NativeBuilder* GetNativeBuilder();

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_NATIVE_BUILDER_H_
