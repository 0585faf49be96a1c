// Looks at the TLS descriptor that resolves `custom_labels_current_set` (or
// `otel_thread_ctx_v1`) in the module that defines it, as an eBPF reader does, to tell static from
// dynamic TLS at run time.
#ifndef CUSTOMLABELS_CORE_TLS_DESCRIPTOR_H_
#define CUSTOMLABELS_CORE_TLS_DESCRIPTOR_H_

#include <cstdint>
#include <string>

namespace customlabels::core {

struct TlsDescriptorInfo {
  // A TLSDESC relocation naming custom_labels_current_set was found in the
  // dynamic relocations of the module that defines the symbol (false for an
  // executable, which reaches its TLS without a descriptor).
  bool found = false;
  std::string module_path;
  uintptr_t module_base = 0;
  uintptr_t descriptor_address = 0;  // in the GOT
  uintptr_t resolver = 0;            // descriptor word 0
  uintptr_t argument = 0;            // descriptor word 1
  uintptr_t thread_pointer = 0;      // fs_base / tpidr_el0 of this thread
  uintptr_t variable_address = 0;    // &custom_labels_current_set here
  // thread_pointer + argument == variable_address: a reader that assumes
  // static TLS (reads the argument once, adds the thread pointer) finds the
  // variable of every thread.
  bool static_tls = false;
};

// The addon's thread-local variables.
enum class TlsSymbol {
  kCurrentSet,      // custom_labels_current_set
  kThreadContext,   // otel_thread_ctx_v1
  kNodeDiscovery,   // otel_thread_ctx_nodejs_v1 (node_context.h)
  kAlsHandle,       // custom_labels_als_handle
  kAlsIdentityHash  // custom_labels_als_identity_hash
};

// Inspects the calling thread's `which`. Never throws; `found` tells whether it worked.
TlsDescriptorInfo InspectTlsDescriptor(TlsSymbol which = TlsSymbol::kCurrentSet);

// This thread's thread pointer (fs_base on x86-64, tpidr_el0 on aarch64).
uintptr_t ThreadPointer();

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_TLS_DESCRIPTOR_H_
