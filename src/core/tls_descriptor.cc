#include "tls_descriptor.h"

#include <elf.h>
#include <link.h>

#include <cstring>

#include "abi.h"
#include "node_context.h"
#include "otel_thread_ctx.h"

namespace customlabels::core {

namespace {

#if defined(__x86_64__)
constexpr uint32_t kTlsDescType = R_X86_64_TLSDESC;
#elif defined(__aarch64__)
constexpr uint32_t kTlsDescType = R_AARCH64_TLSDESC;
#else
constexpr uint32_t kTlsDescType = 0;
#endif

struct Search {
  uintptr_t target;
  const char* symbol;
  TlsDescriptorInfo* info;
};

bool Contains(const dl_phdr_info* mod, uintptr_t address) {
  for (int i = 0; i < mod->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = mod->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uintptr_t start = mod->dlpi_addr + ph.p_vaddr;
    if (address >= start && address < start + ph.p_memsz) return true;
  }
  return false;
}

// glibc rewrites some d_ptr entries to absolute addresses when it loads a
// module; others stay relative to the load base.
uintptr_t Absolute(uintptr_t base, uintptr_t value) { return value >= base ? value : base + value; }

void ScanRelocations(const char* symbol, const dl_phdr_info* mod, const ElfW(Dyn) * dynamic,
                     TlsDescriptorInfo* info) {
  const uintptr_t base = mod->dlpi_addr;
  uintptr_t symtab = 0, strtab = 0, rela = 0, jmprel = 0;
  size_t relasz = 0, pltrelsz = 0;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB:
        symtab = Absolute(base, d->d_un.d_ptr);
        break;
      case DT_STRTAB:
        strtab = Absolute(base, d->d_un.d_ptr);
        break;
      case DT_RELA:
        rela = Absolute(base, d->d_un.d_ptr);
        break;
      case DT_RELASZ:
        relasz = d->d_un.d_val;
        break;
      case DT_JMPREL:
        jmprel = Absolute(base, d->d_un.d_ptr);
        break;
      case DT_PLTRELSZ:
        pltrelsz = d->d_un.d_val;
        break;
      default:
        break;
    }
  }
  if (symtab == 0 || strtab == 0) return;
  const uintptr_t tables[2][2] = {{rela, relasz}, {jmprel, pltrelsz}};
  for (const auto& table : tables) {
    const auto* r = reinterpret_cast<const ElfW(Rela)*>(table[0]);
    const size_t n = table[0] == 0 ? 0 : table[1] / sizeof(ElfW(Rela));
    for (size_t i = 0; i < n; ++i) {
      if (ELF64_R_TYPE(r[i].r_info) != kTlsDescType) continue;
      const auto* sym = reinterpret_cast<const ElfW(Sym)*>(symtab) + ELF64_R_SYM(r[i].r_info);
      const char* name = reinterpret_cast<const char*>(strtab) + sym->st_name;
      if (std::strcmp(name, symbol) != 0) continue;
      const auto* desc = reinterpret_cast<const uintptr_t*>(base + r[i].r_offset);
      info->found = true;
      info->descriptor_address = base + r[i].r_offset;
      info->resolver = __atomic_load_n(&desc[0], __ATOMIC_RELAXED);
      info->argument = __atomic_load_n(&desc[1], __ATOMIC_RELAXED);
      return;
    }
  }
}

int Visit(dl_phdr_info* mod, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  if (!Contains(mod, search->target)) return 0;
  search->info->module_path = mod->dlpi_name != nullptr ? mod->dlpi_name : "";
  search->info->module_base = mod->dlpi_addr;
  for (int i = 0; i < mod->dlpi_phnum; ++i) {
    if (mod->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    ScanRelocations(search->symbol, mod,
                    reinterpret_cast<const ElfW(Dyn)*>(mod->dlpi_addr + mod->dlpi_phdr[i].p_vaddr),
                    search->info);
  }
  return 1;
}

}  // namespace

uintptr_t ThreadPointer() {
  uintptr_t tp = 0;
#if defined(__x86_64__)
  asm volatile("mov %%fs:0, %0" : "=r"(tp));
#elif defined(__aarch64__)
  asm volatile("mrs %0, tpidr_el0" : "=r"(tp));
#endif
  return tp;
}

TlsDescriptorInfo InspectTlsDescriptor(TlsSymbol which) {
  TlsDescriptorInfo info;
  const char* name = "custom_labels_current_set";
  uintptr_t address = reinterpret_cast<uintptr_t>(CurrentSlot());
  switch (which) {
    case TlsSymbol::kCurrentSet:
      break;
    case TlsSymbol::kThreadContext:
      name = "otel_thread_ctx_v1";
      address = reinterpret_cast<uintptr_t>(ThreadContextSlot());
      break;
    case TlsSymbol::kNodeDiscovery:
      name = "otel_thread_ctx_nodejs_v1";
      address = reinterpret_cast<uintptr_t>(&otel_thread_ctx_nodejs_v1);
      break;
    case TlsSymbol::kAlsHandle:
      name = "custom_labels_als_handle";
      address = reinterpret_cast<uintptr_t>(&custom_labels_als_handle);
      break;
    case TlsSymbol::kAlsIdentityHash:
      name = "custom_labels_als_identity_hash";
      address = reinterpret_cast<uintptr_t>(&custom_labels_als_identity_hash);
      break;
  }
  Search search{reinterpret_cast<uintptr_t>(&custom_labels_abi_version), name, &info};
  dl_iterate_phdr(Visit, &search);
  info.thread_pointer = ThreadPointer();
  info.variable_address = address;
  info.static_tls = info.found && info.thread_pointer + info.argument == info.variable_address;
  return info;
}

}  // namespace customlabels::core
