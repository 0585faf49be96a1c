// The builder table the addon lends the V8 unit: called only through its
// function pointers, the way the unit calls it, it builds what
// BuildFromScratch builds, keeps one thread's storage per create(), and
// words every failure the way the addon's build() does.
#include "core/native_builder.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/scratch_build.h"
#include "scratch_test_util.h"
#include "test_util.h"

namespace customlabels::core {
namespace {

using testing::AlignedBytes;
using testing::AsSet;
using testing::EncodeScratch;
using testing::Labels;
using testing::Pairs;
using testing::ReadResults;

// One thread's builder, destroyed through the table.
struct ThreadBuilder {
  explicit ThreadBuilder(const NativeBuilder* t) : table(t), builder(t->create()) {}
  ~ThreadBuilder() { table->destroy(builder); }
  ThreadBuilder(const ThreadBuilder&) = delete;
  ThreadBuilder& operator=(const ThreadBuilder&) = delete;
  int Build(ByteSpan parent, uint32_t parent_offset, AlignedBytes& scratch, uint32_t n,
            ByteSpan slab, uint32_t slab_offset) const {
    return table->build(builder, parent.data, parent.size, parent_offset, scratch.data(),
                        scratch.size(), n, slab.data, slab.size, slab_offset);
  }
  const NativeBuilder* table;
  void* builder;
};

TEST(NativeBuilder, TheTableSaysWhatItIsAndHasEveryFunction) {
  const NativeBuilder* t = GetNativeBuilder();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->magic, kNativeBuilderMagic);
  EXPECT_EQ(t->version, kNativeBuilderVersion);
  EXPECT_EQ(t->size, sizeof(NativeBuilder));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t) % alignof(NativeBuilder), 0u);
  EXPECT_NE(t->create, nullptr);
  EXPECT_NE(t->destroy, nullptr);
  EXPECT_NE(t->build, nullptr);
  EXPECT_NE(t->describe, nullptr);
  EXPECT_EQ(GetNativeBuilder(), t);  // one table for the life of the addon
}

TEST(NativeBuilder, BuildsAndMergesSetsAsBuildFromScratchDoes) {
  ThreadBuilder b(GetNativeBuilder());
  ASSERT_NE(b.builder, nullptr);
  AlignedBytes slab(4096);
  AlignedBytes first = EncodeScratch({{"route", "/a"}, {"customer", "acme"}});
  ASSERT_EQ(b.Build({}, 0, first, 2, slab.span(), 64), 0);
  const auto parent = ReadResults(first);
  EXPECT_EQ(AsSet(parent.address), reinterpret_cast<const void*>(slab.data() + 64));
  EXPECT_EQ(Labels(AsSet(parent.address)), (Pairs{{"route", "/a"}, {"customer", "acme"}}));

  AlignedBytes second = EncodeScratch({{"customer", std::nullopt}, {"method", "GET"}});
  ASSERT_EQ(b.Build(slab.span(), 64, second, 2, slab.span(), parent.next), 0);
  EXPECT_EQ(Labels(AsSet(ReadResults(second).address)),
            (Pairs{{"route", "/a"}, {"method", "GET"}}));

  // The same inputs through BuildFromScratch itself give the same set: the
  // same labels, size and next offset.
  SetBuilders direct;
  AlignedBytes again = EncodeScratch({{"route", "/a"}, {"customer", "acme"}});
  AlignedBytes other(4096);
  ASSERT_EQ(BuildFromScratch(&direct, {}, 0, again.span(), 2, other.span(), 64), BuildStatus::kOk);
  const auto same = ReadResults(again);
  EXPECT_EQ(same.needed, parent.needed);
  EXPECT_EQ(same.next, parent.next);
  EXPECT_EQ(Labels(AsSet(same.address)), Labels(AsSet(parent.address)));
}

TEST(NativeBuilder, EachCreateIsABuilderOfItsOwn) {
  const NativeBuilder* t = GetNativeBuilder();
  ThreadBuilder a(t), b(t);
  EXPECT_NE(a.builder, b.builder);
  AlignedBytes slab_a(4096), slab_b(4096);
  AlignedBytes sa = EncodeScratch({{"a", "1"}});
  AlignedBytes sb = EncodeScratch({{"b", "2"}, {"c", "3"}});
  ASSERT_EQ(a.Build({}, 0, sa, 1, slab_a.span(), 0), 0);
  ASSERT_EQ(b.Build({}, 0, sb, 2, slab_b.span(), 0), 0);
  EXPECT_EQ(Labels(AsSet(ReadResults(sa).address)), (Pairs{{"a", "1"}}));
  EXPECT_EQ(Labels(AsSet(ReadResults(sb).address)), (Pairs{{"b", "2"}, {"c", "3"}}));
}

TEST(NativeBuilder, FailuresComeBackAsTheirStatusWithTheAddonsWording) {
  const NativeBuilder* t = GetNativeBuilder();
  ThreadBuilder b(t);
  AlignedBytes slab(4096);
  AlignedBytes junk(256);
  std::memset(junk.data(), 0x41, junk.size());
  AlignedBytes scratch = EncodeScratch({{"a", "1"}});
  EXPECT_EQ(b.Build(junk.span(), 0, scratch, 1, slab.span(), 0),
            static_cast<int>(BuildStatus::kBadParent));
  EXPECT_EQ(b.Build({}, 0, scratch, 0x7fffffff, slab.span(), 0),
            static_cast<int>(BuildStatus::kScratchTooSmall));
  EXPECT_EQ(b.Build({}, 0, scratch, 1, slab.span(), 12), static_cast<int>(BuildStatus::kBadSlab));

  struct Case {
    BuildStatus status;
    const char* message;
    bool type_error;
  };
  for (const Case& c :
       {Case{BuildStatus::kBadParent, "not a customlabels label set", true},
        Case{BuildStatus::kScratchTooSmall, "scratch too small", false},
        Case{BuildStatus::kScratchOverflow, "scratch overflow", false},
        Case{BuildStatus::kBadTraceOp, "unknown trace operation", false},
        Case{BuildStatus::kBadSlab, "slab offset misaligned or overlapping its inputs", false},
        Case{BuildStatus::kOutOfMemory, "out of memory building the label set", false}}) {
    bool type_error = !c.type_error;
    EXPECT_EQ(std::string(t->describe(static_cast<int>(c.status), &type_error)), c.message);
    EXPECT_EQ(type_error, c.type_error) << c.message;
  }
  // A status no build returns still gets an error, never a null message.
  bool type_error = true;
  EXPECT_NE(t->describe(99, &type_error), nullptr);
  EXPECT_FALSE(type_error);
}

}  // namespace
}  // namespace customlabels::core
