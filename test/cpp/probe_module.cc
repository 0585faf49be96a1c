// A dlopen()ed module built from the core like the addon, for abi_test.cc.
#include "core/abi.h"
#include "core/tls_descriptor.h"

extern "C" {

CUSTOMLABELS_EXPORT void customlabels_probe_inspect(customlabels::core::TlsDescriptorInfo* out,
                                                    customlabels::core::TlsSymbol which) {
  *out = customlabels::core::InspectTlsDescriptor(which);
}

CUSTOMLABELS_EXPORT void customlabels_probe_publish(const custom_labels_labelset_t* set) {
  customlabels::core::PublishCurrent(set);
}

}  // extern "C"
