// The reader's pure parts: output encodings, what each reader keeps, and the
// ELF facts it looks up, checked on the probe module built like the addon and
// on hostile variants of it.
#include <elf.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

#include "reader/abi_reader.h"
#include "reader/elf_checks.h"
#include "reader/elf_file.h"
#include "reader/format.h"
#include "reader/label_views.h"
#include "reader/memory_image.h"
#include "reader/reader_profiles.h"

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

// A decoded set whose slots are `kv` as published (nullptr: null key).
DecodedSet SetOf(std::initializer_list<std::pair<const char*, std::string>> kv) {
  DecodedSet d;
  d.address = 0x1000;
  for (const auto& [k, v] : kv) {
    Slot s;
    s.index = d.slots.size();
    s.key_null = k == nullptr;
    s.key = k == nullptr ? "" : k;
    s.key_length = s.key.size();
    s.value = v;
    s.value_length = v.size();
    d.slots.push_back(std::move(s));
  }
  d.count = d.slots.size();
  return d;
}

TEST(Views, AbiViewSkipsNullKeysAndKeepsTheFirstDuplicate) {
  const auto view = AbiView(SetOf({{nullptr, "x"}, {"a", "first"}, {"b", "2"}, {"a", "second"}}));
  ASSERT_EQ(view.size(), 2u);
  EXPECT_EQ(view[0].value, "first");
  EXPECT_EQ(view[0].index, 1u);
}

TEST(Views, ParcaViewCountsNullSlotsCutsLengthsAndKeepsTheLastDuplicate) {
  const ReaderProfile& parca = *FindReaderProfile("parca");
  DecodedSet d = SetOf({{nullptr, "x"}, {"a", "first"}, {"a", "second"}});
  for (int i = 0; i < 10; ++i) {
    Slot s;
    s.index = d.slots.size();
    s.key = "k" + std::to_string(i);
    s.key_length = s.key.size();
    s.value = "v";
    s.value_length = 1;
    d.slots.push_back(s);
  }
  d.count = d.slots.size();
  const auto view = ProfileView(d, parca);
  // 10 slots read: null, a, a, k0..k6.
  ASSERT_EQ(view.size(), 8u);
  EXPECT_EQ(view[0].key, "a");
  EXPECT_EQ(view[0].value, "second");
  EXPECT_EQ(view.back().key, "k6");
  EXPECT_EQ(ProfileNotes(d, parca),
            std::vector<std::string>{"only the first 10 of 13 labels are read"});
  const DecodedSet long_ones = SetOf({{"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkk", std::string(60, 'v')}});
  const auto cut = ProfileView(long_ones, parca);
  EXPECT_EQ(cut[0].key.size(), 25u);
  EXPECT_EQ(cut[0].value.size(), 53u);
  EXPECT_EQ(
      ProfileNotes(long_ones, parca),
      (std::vector<std::string>{"key \"kkkkkkkkkkkkkkkkkkkkkkkkk...\" is cut to 25 bytes (30)",
                                "value of \"kkkkkkkkkkkkkkkkkkkkkkkkk\" is cut to 53 bytes (60)"}));
  EXPECT_TRUE(ProfileNotes(SetOf({{"a", "1"}}), parca).empty());
}

TEST(Views, ProfilesNoteThePublishedLengthsNotWhatTheReaderKept) {
  DecodedSet d = SetOf({{"big", std::string(100, 'v')}});
  d.slots[0].value_length = 268435456;  // cut to 100 by --max-value-bytes
  d.slots[0].value_cut = kLimitValueBytes;
  EXPECT_EQ(ProfileNotes(d, *FindReaderProfile("parca")),
            std::vector<std::string>{"value of \"big\" is cut to 53 bytes (268435456)"});
}

TEST(ReaderProfiles, TheTableNamesEachProfileOnceWithItsNumbers) {
  ASSERT_FALSE(ReaderProfiles().empty());
  for (const ReaderProfile& p : ReaderProfiles()) {
    EXPECT_EQ(FindReaderProfile(p.name), &p);
    EXPECT_GT(p.max_labels, 0u);
    EXPECT_GT(p.max_key_bytes, 0u);
    EXPECT_NE(std::string(p.citation), "");
  }
  const ReaderProfile* parca = FindReaderProfile("parca");
  ASSERT_NE(parca, nullptr);
  EXPECT_EQ(parca->max_labels, 10u);
  EXPECT_EQ(parca->max_key_bytes, 25u);
  EXPECT_EQ(parca->max_value_bytes, 53u);
  EXPECT_EQ(parca->duplicates, ReaderProfile::Duplicates::kLastWins);
  EXPECT_EQ(FindReaderProfile("nope"), nullptr);
}

std::string ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void ExpectAbiFound(const ElfFile& elf) {
  const std::optional<ElfSymbol> version = elf.FindDynamicSymbol("custom_labels_abi_version");
  ASSERT_TRUE(version);
  EXPECT_EQ(version->size, 4u);
  EXPECT_EQ(version->type, unsigned{STT_OBJECT});
  uint32_t value = 0;
  ASSERT_TRUE(elf.ReadVaddr(version->value, &value, sizeof(value)));
  EXPECT_EQ(value, 1u);
  const std::optional<ElfSymbol> set = elf.FindDynamicSymbol("custom_labels_current_set");
  ASSERT_TRUE(set);
  EXPECT_EQ(set->type, unsigned{STT_TLS});
  EXPECT_TRUE(elf.FindTlsDescriptor("custom_labels_current_set"));
  // One pointer, or, once the core also defines otel_thread_ctx_v1 and the
  // Node.js discovery (otel_thread_ctx_nodejs_v1, the Parca pair), 60 bytes
  // (64 where the compiler pads the 4-byte identity hash).
  const std::optional<ElfSymbol> otel = elf.FindDynamicSymbol("otel_thread_ctx_v1");
  const uint64_t tls = elf.tls_size().value_or(0);
  if (otel) {
    EXPECT_GE(tls, 60u);
    EXPECT_LE(tls, 64u);
  } else {
    EXPECT_EQ(tls, 8u);
  }
  if (otel) {
    EXPECT_EQ(otel->type, unsigned{STT_TLS});
    EXPECT_EQ(otel->size, 8u);
    EXPECT_TRUE(elf.FindTlsDescriptor("otel_thread_ctx_v1"));
  }
  EXPECT_FALSE(elf.FindDynamicSymbol("custom_labels_abi_versio"));  // no prefix matches
}

TEST(ElfFile, FindsTheAbiInTheProbeModule) {
  std::string error;
  auto elf = ElfFile::Open(CUSTOMLABELS_PROBE_MODULE, &error);
  ASSERT_TRUE(elf) << error;
  ExpectAbiFound(*elf);
  auto bytes = ElfFile::FromBytes(ReadFile(CUSTOMLABELS_PROBE_MODULE), &error);
  ASSERT_TRUE(bytes) << error;
  ExpectAbiFound(*bytes);
  for (const CheckLine& l : CheckElf(*bytes, "x/customlabels.node")) EXPECT_TRUE(l.pass) << l.text;
}

TEST(ElfFile, RejectsWhatIsNotAnElf64File) {
  std::string error;
  EXPECT_FALSE(ElfFile::Open(CUSTOMLABELS_PROBE_SOURCE_ROOT "/CMakeLists.txt", &error));
  EXPECT_NE(error.find("not an ELF"), std::string::npos);
  EXPECT_FALSE(ElfFile::Open("/nonexistent/customlabels.node", &error));
  EXPECT_NE(error.find("cannot open"), std::string::npos);
  EXPECT_FALSE(ElfFile::Open(CUSTOMLABELS_PROBE_SOURCE_ROOT, &error));
  EXPECT_EQ(error, "cannot open " CUSTOMLABELS_PROBE_SOURCE_ROOT ": is a directory");
  // Never read to the end of something endless.
  EXPECT_FALSE(ElfFile::Open("/dev/zero", &error));
  EXPECT_EQ(error, "cannot open /dev/zero: not a regular file");
  // Nor wait for a writer that never comes.
  const std::string fifo = ::testing::TempDir() + "customlabels-fifo-" + std::to_string(getpid());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(ElfFile::Open(fifo, &error));
  EXPECT_EQ(error, "cannot open " + fifo + ": not a regular file");
  unlink(fifo.c_str());
  EXPECT_FALSE(ElfFile::FromBytes("", &error));
  EXPECT_EQ(error, "the input is not an ELF file");
}

// Every prefix of a real module parses or fails cleanly; none crashes.
TEST(ElfFile, TruncatedModulesFailCleanly) {
  const std::string module = ReadFile(CUSTOMLABELS_PROBE_MODULE);
  ASSERT_GT(module.size(), 1000u);
  for (size_t size = 0; size < module.size(); size += 1 + size / 16) {
    std::string error;
    auto elf = ElfFile::FromBytes(module.substr(0, size), &error);
    if (!elf) {
      EXPECT_FALSE(error.empty());
      continue;
    }
    (void)CheckElf(*elf, "customlabels.node");  // lookups on a truncated file
  }
}

// The section header of the first section of `type` in an ELF file's bytes.
Elf64_Shdr* SectionOfType(std::string* file, uint32_t type) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, file->data(), sizeof(eh));
  for (uint16_t i = 0; i < eh.e_shnum; ++i) {
    auto* sh = reinterpret_cast<Elf64_Shdr*>(file->data() + eh.e_shoff + i * eh.e_shentsize);
    if (sh->sh_type == type) return sh;
  }
  return nullptr;
}

// Dynamic symbols are looked up through the GNU hash table, with the answers
// a scan of every entry gives, found or not; a hash table that does not
// read as one (no buckets, buckets past its end, a chain that leaves the
// symbol table) falls back to the scan.
TEST(ElfFile, DynamicSymbolsThroughTheGnuHashTableAsByAScan) {
  const std::string libc = ReadFile("/lib/x86_64-linux-gnu/libc.so.6").empty()
                               ? ReadFile("/lib/aarch64-linux-gnu/libc.so.6")
                               : ReadFile("/lib/x86_64-linux-gnu/libc.so.6");
  ASSERT_GT(libc.size(), 100000u) << "no libc.so.6 to read";
  std::string scanned = libc;
  Elf64_Shdr* hash = SectionOfType(&scanned, SHT_GNU_HASH);
  ASSERT_NE(hash, nullptr) << "libc.so.6 has no .gnu.hash";
  hash->sh_type = SHT_PROGBITS;  // the same file, without its hash table
  std::string error;
  auto hashed = ElfFile::FromBytes(libc, &error);
  ASSERT_TRUE(hashed) << error;
  auto plain = ElfFile::FromBytes(scanned, &error);
  ASSERT_TRUE(plain) << error;
  const char* names[] = {"malloc", "printf", "__libc_start_main", "errno", "pthread_create",
                         "gnu_get_libc_version", "malloc_", "no_such_symbol", ""};
  for (const char* name : names) {
    const std::optional<ElfSymbol> a = hashed->FindDynamicSymbol(name);
    const std::optional<ElfSymbol> b = plain->FindDynamicSymbol(name);
    ASSERT_EQ(a.has_value(), b.has_value()) << name;
    if (a) {
      EXPECT_EQ(a->value, b->value) << name;
      EXPECT_EQ(a->size, b->size) << name;
      EXPECT_EQ(a->type, b->type) << name;
    }
  }
  EXPECT_TRUE(hashed->FindDynamicSymbol("malloc"));
  EXPECT_FALSE(hashed->FindDynamicSymbol("no_such_symbol"));

  // Malformed tables: the scan answers.
  const uint64_t at = hash->sh_offset;
  auto broken = [&](void (*edit)(std::string*, uint64_t)) {
    std::string file = libc;
    edit(&file, at);
    std::string why;
    auto elf = ElfFile::FromBytes(file, &why);
    EXPECT_TRUE(elf) << why;
    if (elf) {
      EXPECT_TRUE(elf->FindDynamicSymbol("malloc"));
      EXPECT_FALSE(elf->FindDynamicSymbol("no_such_symbol"));
    }
  };
  broken([](std::string* f, uint64_t off) { std::memset(f->data() + off, 0, 4); });        // no buckets
  broken([](std::string* f, uint64_t off) { std::memset(f->data() + off + 8, 0xff, 4); });  // bloom past the end
  broken([](std::string* f, uint64_t off) { std::memset(f->data() + off + 4, 0xff, 4); });  // symoffset past the table
}

// A MemorySource that counts the bytes read from it (ElfFile owns it).
struct CountedBytes final : MemorySource {
  MemoryImage image;
  std::shared_ptr<uint64_t> bytes = std::make_shared<uint64_t>(0);
  bool Read(uint64_t address, void* out, size_t size) const override {
    *bytes += size;
    return image.Read(address, out, size);
  }
};

// Section headers that all claim one huge table: lookups stop at the budget.
TEST(ElfFile, HostileSectionTablesAreScannedWithinABudget) {
  std::string bytes(1 << 20, '\0');
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_machine = EM_X86_64;
  eh.e_shoff = 4096;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 4000;
  std::memcpy(bytes.data(), &eh, sizeof(eh));
  for (uint16_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh{};
    sh.sh_type = i == 0 ? SHT_DYNSYM : SHT_RELA;
    sh.sh_offset = 0;
    sh.sh_size = ~uint64_t{0};  // "the whole address space"
    sh.sh_entsize = i == 0 ? sizeof(Elf64_Sym) : sizeof(Elf64_Rela);
    sh.sh_link = 0;
    std::memcpy(bytes.data() + 4096 + i * sizeof(sh), &sh, sizeof(sh));
  }
  auto counted = std::make_unique<CountedBytes>();
  counted->image.Add(0, std::move(bytes));
  std::shared_ptr<uint64_t> read = counted->bytes;
  std::string error;
  auto elf = ElfFile::Parse(std::move(counted), "bomb", &error);
  ASSERT_TRUE(elf) << error;
  *read = 0;
  EXPECT_FALSE(elf->FindDynamicSymbol("custom_labels_abi_version"));
  // The table until the file ends (1 MiB), and one short name per entry.
  EXPECT_LE(*read, 3u << 20);
  *read = 0;
  EXPECT_FALSE(elf->FindTlsDescriptor("custom_labels_current_set"));
  // 4000 tables of 43,690 entries each would be 4 GiB; the budget stops it.
  EXPECT_GT(*read, 0u);
  // (plus one failed read of at most 8 KiB where each table meets the end).
  EXPECT_LE(*read, ElfFile::kMaxScannedEntries * sizeof(Elf64_Rela) + 4000 * 8192);
}

TEST(ElfFile, AddressesAndOffsetsNearTheTopDoNotWrap) {
  const std::string module = ReadFile(CUSTOMLABELS_PROBE_MODULE);
  std::string error;
  auto elf = ElfFile::FromBytes(module, &error);
  ASSERT_TRUE(elf) << error;
  uint64_t word;
  EXPECT_FALSE(elf->ReadVaddr(~uint64_t{0} - 2, &word, sizeof(word)));
  EXPECT_FALSE(elf->VaddrOfOffset(~uint64_t{0}));
  EXPECT_TRUE(elf->VaddrOfOffset(0));
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
