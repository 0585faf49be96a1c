// node-addon-api glue: converts between JS values and the core's types.
// One Addon instance per Node.js environment (main thread, each worker).
#ifndef CUSTOMLABELS_BINDING_ADDON_H_
#define CUSTOMLABELS_BINDING_ADDON_H_

#include <napi.h>

#include "../core/label_set_builder.h"

namespace customlabels::binding {

class Addon final : public Napi::Addon<Addon> {
 public:
  Addon(Napi::Env env, Napi::Object exports);
  ~Addon();
  Addon(const Addon&) = delete;
  Addon& operator=(const Addon&) = delete;

 private:
  // build(parentSlab: ArrayBuffer | null, parentOffset, scratch, n,
  //       slab: ArrayBuffer, offset): core::BuildFromScratch. The scratch
  //   layout and results are defined in lib/protocol.js, mirrored in
  //   src/core/scratch_protocol.h.
  Napi::Value Build(const Napi::CallbackInfo& info);
  // setCurrent(slab: ArrayBuffer | null, offset): publishes through a
  //   native call.
  Napi::Value SetCurrent(const Napi::CallbackInfo& info);
  // tlsSlot() -> ArrayBuffer over this thread's custom_labels_current_set,
  //   or null where external buffers are not allowed.
  Napi::Value TlsSlot(const Napi::CallbackInfo& info);
  // currentLabels() -> {key: value} read through the ABI pointer.
  Napi::Value CurrentLabels(const Napi::CallbackInfo& info);
  // Test-only, on the `testing` export:
  // currentSetAddress() -> bigint, 0n when NULL.
  Napi::Value CurrentSetAddress(const Napi::CallbackInfo& info);
  // tlsInfo() -> what a static-TLS reader would compute on this thread.
  Napi::Value TlsInfo(const Napi::CallbackInfo& info);
  // peekWord(address: bigint) -> bigint | null: reads 8 bytes of this
  //   process (null if unreadable) without faulting. For tests that look at
  //   raw ABI words and at another thread's slot as an external reader does.
  Napi::Value PeekWord(const Napi::CallbackInfo& info);

  static void ClearCurrent(void* arg);

  core::LabelSetBuilder builder_;
};

}  // namespace customlabels::binding

#endif  // CUSTOMLABELS_BINDING_ADDON_H_
