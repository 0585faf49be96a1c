// node-addon-api glue: converts between JS values and the core's types.
// One Addon instance per Node.js environment (main thread, each worker).
#ifndef CUSTOMLABELS_BINDING_ADDON_H_
#define CUSTOMLABELS_BINDING_ADDON_H_

#include <napi.h>

#include "../core/process_context.h"
#include "../core/scratch_build.h"
#include "idle_clear.h"

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
  //   layout and results are defined in lib/core/protocol.js, mirrored in
  //   src/core/scratch_protocol.h.
  Napi::Value Build(const Napi::CallbackInfo& info);
  // nativeBuilder() -> bigint: the address of the same builder as a table of
  //   C functions (src/core/native_builder.h), for the V8 unit.
  Napi::Value NativeBuilder(const Napi::CallbackInfo& info);
  // setCurrent(slab: ArrayBuffer | null, offset): publishes the set and its
  //   thread context record through a native call.
  Napi::Value SetCurrent(const Napi::CallbackInfo& info);
  // tlsSlot() -> ArrayBuffer over this thread's custom_labels_current_set,
  //   or null where external buffers are not allowed.
  Napi::Value TlsSlot(const Napi::CallbackInfo& info);
  // threadContextSlot() -> the same over this thread's otel_thread_ctx_v1.
  Napi::Value ThreadContextSlot(const Napi::CallbackInfo& info);
  // tlsSlotPair() -> one ArrayBuffer over both when otel_thread_ctx_v1
  //   directly follows custom_labels_current_set in the TLS block (one typed
  //   array for both stores is cheaper than two), else null.
  Napi::Value TlsSlotPair(const Napi::CallbackInfo& info);
  // setResource([key, value, key, value, ...]: strings): the process
  //   context's resource attributes.
  Napi::Value SetResource(const Napi::CallbackInfo& info);
  // processContext() -> {state, mapping, keys, payloadBytes}.
  Napi::Value ProcessContextStatus(const Napi::CallbackInfo& info);
  // currentLabels() -> {key: value} read through the ABI pointer.
  Napi::Value CurrentLabels(const Napi::CallbackInfo& info);
  // labelsOf(slab, offset) -> {key: value} of the set there (hook-free
  //   threads, whose ABI pointer stays NULL).
  Napi::Value LabelsOf(const Napi::CallbackInfo& info);
  // publishNodeContext({cpedSlot, alsHandle, alsIdentityHash,
  //   undefinedValue}, recordSlotOffset): this thread's
  //   otel_thread_ctx_nodejs_v1 and the Parca agent's pair (gates last).
  Napi::Value PublishNodeContext(const Napi::CallbackInfo& info);
  // clearNodeContext(): clears them, gates first.
  Napi::Value ClearNodeContext(const Napi::CallbackInfo& info);
  // mirrorNodeContext(path) -> 'mirrored' | 'claimed' | 'absent': another
  //   loaded module's otel_thread_ctx_nodejs_v1 gets this thread's (and
  //   every later publication's) discovery where it is unclaimed
  //   (core/node_mirrors.h).
  Napi::Value MirrorNodeContext(const Napi::CallbackInfo& info);
  // walkNodeContext(discovery, layout) -> {status, labelSet, record}: the
  //   readers' walk (core/node_walk.h) over this process's memory, reading
  //   through a pipe so that a wrong layout fails instead of faulting.
  Napi::Value WalkNodeContext(const Napi::CallbackInfo& info);
  // hooksDefault() -> boolean | undefined; setHooksDefault(on): the
  //   process-wide choice of hooks (core::HooksDefault).
  Napi::Value HooksDefault(const Napi::CallbackInfo& info);
  Napi::Value SetHooksDefault(const Napi::CallbackInfo& info);
  // clearWhenIdle() -> boolean: from now on this environment's event loop
  //   clears the thread's published pointers each time it is about to wait
  //   for I/O (idle_clear.h); false if it cannot.
  Napi::Value ClearWhenIdle(const Napi::CallbackInfo& info);
  // useNodeSchema(layout): the process context says nodejs_v1_dev.
  Napi::Value UseNodeSchema(const Napi::CallbackInfo& info);
  static void ClearCurrent(void* arg);
  static void ClearNode(void* arg);

  core::CachedProcessKeys keys_;
  core::SetBuilders builders_;
  napi_env env_ = nullptr;
  bool node_hook_ = false;
  bool idle_clear_ = false;
};

}  // namespace customlabels::binding

#endif  // CUSTOMLABELS_BINDING_ADDON_H_
