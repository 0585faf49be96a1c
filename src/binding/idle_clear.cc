#include "idle_clear.h"

#include "../core/abi.h"
#include "../core/otel_thread_ctx.h"

namespace customlabels::binding {

IdleClear* IdleClear::Start(napi_env env) {
  uv_loop_t* loop = nullptr;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok || loop == nullptr) return nullptr;
  auto* self = new IdleClear();
  if (uv_prepare_init(loop, &self->prepare_) != 0) {
    delete self;
    return nullptr;
  }
  self->prepare_.data = self;
  if (napi_add_async_cleanup_hook(env, &IdleClear::OnCleanup, self, &self->cleanup_) != napi_ok) {
    // Not started: closed (and freed) by libuv on the loop's next turn.
    uv_close(reinterpret_cast<uv_handle_t*>(&self->prepare_), &IdleClear::OnClosed);
    return nullptr;
  }
  uv_prepare_start(&self->prepare_, &IdleClear::OnPrepare);
  uv_unref(reinterpret_cast<uv_handle_t*>(&self->prepare_));
  return self;
}

void IdleClear::OnPrepare(uv_prepare_t*) {
  // Back to back, as lib/core/publisher.js stores them.
  core::PublishCurrent(nullptr);
  core::PublishThreadContext(nullptr);
}

void IdleClear::OnCleanup(napi_async_cleanup_hook_handle, void* arg) {
  auto* self = static_cast<IdleClear*>(arg);
  uv_prepare_stop(&self->prepare_);
  uv_close(reinterpret_cast<uv_handle_t*>(&self->prepare_), &IdleClear::OnClosed);
}

void IdleClear::OnClosed(uv_handle_t* handle) {
  auto* self = static_cast<IdleClear*>(handle->data);
  if (self->cleanup_ != nullptr) napi_remove_async_cleanup_hook(self->cleanup_);
  delete self;
}

}  // namespace customlabels::binding
