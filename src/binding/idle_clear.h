// Clears the thread's published pointers (custom_labels_current_set and
// otel_thread_ctx_v1) each time its event loop is about to wait for I/O: a
// libuv prepare handle on the environment's loop, unreferenced (it never
// keeps the loop alive). With the 'frame-before' switch (lib/core/switcher.js),
// promise reactions install their labels without restoring them after;
// this is what makes a thread idle in its event loop show none. One per
// environment (main thread, each worker), closed by an async cleanup hook
// when the environment goes away.
#ifndef CUSTOMLABELS_BINDING_IDLE_CLEAR_H_
#define CUSTOMLABELS_BINDING_IDLE_CLEAR_H_

#include <node_api.h>
#include <uv.h>

namespace customlabels::binding {

class IdleClear final {
 public:
  // Starts clearing on `env`'s loop; false (and nothing started) if the
  // loop or the cleanup hook cannot be had.
  static IdleClear* Start(napi_env env);
  IdleClear(const IdleClear&) = delete;
  IdleClear& operator=(const IdleClear&) = delete;

 private:
  IdleClear() = default;
  static void OnPrepare(uv_prepare_t* handle);
  static void OnCleanup(napi_async_cleanup_hook_handle hook, void* arg);
  static void OnClosed(uv_handle_t* handle);

  uv_prepare_t prepare_{};
  napi_async_cleanup_hook_handle cleanup_ = nullptr;
};

}  // namespace customlabels::binding

#endif  // CUSTOMLABELS_BINDING_IDLE_CLEAR_H_
