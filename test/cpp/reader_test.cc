// The reader's pure parts: output encodings, what each reader keeps, and the
// ELF facts it looks up, checked on the probe module built like the addon.
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "reader/abi_reader.h"
#include "reader/elf_file.h"
#include "reader/format.h"

namespace customlabels::reader {
namespace {

TEST(Format, JsonKeepsUtf8AndEscapesInvalidBytesAsSurrogates) {
  EXPECT_EQ(JsonString("plain"), "\"plain\"");
  EXPECT_EQ(JsonString("qu\"o\\te\n\t"), "\"qu\\\"o\\\\te\\n\\t\"");
  EXPECT_EQ(JsonString("caf\xc3\xa9 \xf0\x9f\x94\x91"), "\"caf\xc3\xa9 \xf0\x9f\x94\x91\"");
  EXPECT_EQ(JsonString(std::string("\xff"
                                   "A\xc3",
                                   3)),
            "\"\\udcffA\\udcc3\"");
  EXPECT_EQ(JsonString(std::string("a\0b", 3)), "\"a\\u0000b\"");
  // Overlong encodings and UTF-16 surrogates are not valid UTF-8.
  EXPECT_EQ(JsonString("\xc0\xaf"), "\"\\udcc0\\udcaf\"");
  EXPECT_EQ(JsonString("\xed\xa0\x80"), "\"\\udced\\udca0\\udc80\"");
}

TEST(Format, TextEscapesControlAndInvalidBytes) {
  EXPECT_EQ(TextString("route=/a b"), "route=/a b");
  EXPECT_EQ(TextString(std::string("\xff\n\\", 3)), "\\xff\\x0a\\x5c");
  EXPECT_EQ(TextString("\xc3\xa9"), "\xc3\xa9");
}

TEST(Format, LabelsAsJsonAndText) {
  const std::vector<Label> labels = {{"a", "1"}, {"b", "2"}};
  EXPECT_EQ(JsonLabels(&labels), "{\"a\":\"1\",\"b\":\"2\"}");
  EXPECT_EQ(JsonLabels(nullptr), "null");
  EXPECT_EQ(TextLabels(&labels), "a=1 b=2");
  EXPECT_EQ(TextLabels(nullptr), "(none)");
}

std::vector<Slot> Slots(std::initializer_list<std::pair<const char*, const char*>> kv) {
  std::vector<Slot> out;
  for (const auto& [k, v] : kv) out.push_back({k == nullptr, k == nullptr ? "" : k, v});
  return out;
}

TEST(Views, AbiViewSkipsNullKeysAndKeepsTheFirstDuplicate) {
  const auto view = AbiView(Slots({{nullptr, "x"}, {"a", "first"}, {"b", "2"}, {"a", "second"}}));
  ASSERT_EQ(view.size(), 2u);
  EXPECT_EQ(view[0].value, "first");
}

TEST(Views, ParcaViewCountsNullSlotsCutsLengthsAndKeepsTheLastDuplicate) {
  std::vector<Slot> slots = Slots({{nullptr, "x"}, {"a", "first"}, {"a", "second"}});
  for (int i = 0; i < 10; ++i) slots.push_back({false, "k" + std::to_string(i), "v"});
  slots.push_back({false, std::string(30, 'k'), std::string(60, 'v')});
  const auto view = ParcaView(slots);
  // 10 slots read: null, a, a, k0..k6.
  ASSERT_EQ(view.size(), 8u);
  EXPECT_EQ(view[0].key, "a");
  EXPECT_EQ(view[0].value, "second");
  EXPECT_EQ(view.back().key, "k6");
  std::vector<Slot> long_ones = {{false, std::string(30, 'k'), std::string(60, 'v')}};
  const auto cut = ParcaView(long_ones);
  EXPECT_EQ(cut[0].key.size(), 25u);
  EXPECT_EQ(cut[0].value.size(), 53u);
  EXPECT_EQ(ParcaNotes(long_ones).size(), 2u);
  EXPECT_TRUE(ParcaNotes(Slots({{"a", "1"}})).empty());
}

TEST(ElfFile, FindsTheAbiInTheProbeModule) {
  std::string error;
  auto elf = ElfFile::Open(CUSTOMLABELS_PROBE_MODULE, &error);
  ASSERT_TRUE(elf) << error;
  const ElfSymbol* version = elf->FindDynamicSymbol("custom_labels_abi_version");
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(version->size, 4u);
  EXPECT_EQ(version->type, unsigned{STT_OBJECT});
  uint32_t value = 0;
  ASSERT_TRUE(elf->ReadVaddr(version->value, &value, sizeof(value)));
  EXPECT_EQ(value, 1u);
  const ElfSymbol* set = elf->FindDynamicSymbol("custom_labels_current_set");
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->type, unsigned{STT_TLS});
  EXPECT_NE(elf->FindTlsDescriptor("custom_labels_current_set"), nullptr);
  EXPECT_EQ(elf->tls_size().value_or(0), 8u);
}

TEST(ElfFile, RejectsWhatIsNotAnElf64File) {
  std::string error;
  EXPECT_FALSE(ElfFile::Open(CUSTOMLABELS_PROBE_SOURCE_ROOT "/CMakeLists.txt", &error));
  EXPECT_NE(error.find("not an ELF"), std::string::npos);
  EXPECT_FALSE(ElfFile::Open("/nonexistent/customlabels.node", &error));
  EXPECT_NE(error.find("cannot open"), std::string::npos);
}

TEST(LocateAbi, ReportsProcessesWithoutTheAddon) {
  Failure f;
  EXPECT_FALSE(LocateAbi(getpid(), &f));
  EXPECT_EQ(f.exit, kNotLoaded);
  EXPECT_FALSE(LocateAbi(4194000, &f));
  EXPECT_EQ(f.exit, kNoProcess);
}

}  // namespace
}  // namespace customlabels::reader
