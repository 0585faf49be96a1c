// A stand-in for a Node.js executable as the Parca agent's loaders read it
// (reader_test "ParcaSetup"): V8's version symbols in .dynsym, Node's
// `napi_get_node_version` data (a local symbol, in .symtab only, as in the
// official binaries), and V8's thread-local isolate pointer, exported in
// .dynsym (FAKE_NODE_ISOLATE_EXPORTED, as Node <= 24.10 has it) or only in
// .symtab (as Node >= 24.11 has it). Built with -rdynamic, for major
// FAKE_NODE_MAJOR.
#include <cstdint>

#ifdef FAKE_NODE_ISOLATE_EXPORTED
#define ISOLATE_VISIBILITY "default"
#else
#define ISOLATE_VISIBILITY "hidden"
#endif

extern "C" {
// Some thread-local storage before the isolate pointer, as in Node.
__attribute__((used)) __thread uint64_t fake_tls_before[4];
__attribute__((used, visibility(ISOLATE_VISIBILITY))) __thread void* fake_isolate __asm__(
    "_ZN2v88internal18g_current_isolate_E") = nullptr;
__attribute__((used)) static const uint32_t fake_node_version[6] __asm__(
    "_ZZ21napi_get_node_versionE7version") = {FAKE_NODE_MAJOR, 21, 0, 0, 0, 0};
__attribute__((visibility("default"))) extern const int fake_v8_major __asm__(
    "_ZN2v88internal7Version6major_E");
__attribute__((visibility("default"))) extern const int fake_v8_minor __asm__(
    "_ZN2v88internal7Version6minor_E");
__attribute__((visibility("default"))) extern const int fake_v8_build __asm__(
    "_ZN2v88internal7Version6build_E");
const int fake_v8_major = 13;
const int fake_v8_minor = 6;
const int fake_v8_build = 233;
}

int main() { return fake_isolate != nullptr || fake_node_version[0] == 0 || fake_tls_before[0] != 0; }
