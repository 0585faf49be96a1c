// Issue #37's trial of V8's own promise hook (Isolate::SetPromiseHook: C++,
// no JS entered), for bench/native-promise-hook.js alone (not shipped):
//   installEmpty()      a hook that returns at once: what V8's calls into
//                       an isolate hook cost per promise event
//   installSwitch(als)  on each reaction's `before`, what a switch on it does:
//                       reads the continuation data (AsyncContextFrame),
//                       looks `als` up in it and stores what it finds (the
//                       store's first internal field where it has one) into
//                       a thread-local pointer, as the TLS switch would
//   switched()          how many `before` events the switch handled
#include <node.h>
#include <v8.h>

#include <cstdint>

namespace {

// Never freed: the hook may outlive the environment.
thread_local v8::Global<v8::Object>* g_als = nullptr;
thread_local void* volatile g_current = nullptr;
thread_local uint64_t g_switched = 0;

void EmptyHook(v8::PromiseHookType, v8::Local<v8::Promise>, v8::Local<v8::Value>) {}

void SwitchHook(v8::PromiseHookType type, v8::Local<v8::Promise>, v8::Local<v8::Value>) {
  if (type != v8::PromiseHookType::kBefore) return;
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
#if V8_MAJOR_VERSION >= 14
  v8::Local<v8::Data> data = isolate->GetContinuationPreservedEmbedderDataV2();
  v8::Local<v8::Value> frame = data.IsEmpty() || !data->IsValue() ? v8::Undefined(isolate).As<v8::Value>() : data.As<v8::Value>();
#else
  v8::Local<v8::Value> frame = isolate->GetContinuationPreservedEmbedderData();
#endif
  void* next = nullptr;
  if (frame->IsMap()) {
    v8::Local<v8::Context> context = isolate->GetCurrentContext();
    v8::Local<v8::Value> store;
    if (frame.As<v8::Map>()->Get(context, g_als->Get(isolate)).ToLocal(&store) && store->IsObject()) {
      v8::Local<v8::Object> object = store.As<v8::Object>();
#if V8_MAJOR_VERSION >= 14
      next = object->InternalFieldCount() > 0 ? object->GetAlignedPointerFromInternalField(0, v8::kEmbedderDataTypeTagDefault)
                                              : *reinterpret_cast<void**>(&object);
#else
      next = object->InternalFieldCount() > 0 ? object->GetAlignedPointerFromInternalField(0) : *reinterpret_cast<void**>(&object);
#endif
    }
  }
  g_current = next;
  ++g_switched;
}

void InstallEmpty(const v8::FunctionCallbackInfo<v8::Value>& args) { args.GetIsolate()->SetPromiseHook(EmptyHook); }

void InstallSwitch(const v8::FunctionCallbackInfo<v8::Value>& args) {
  v8::Isolate* isolate = args.GetIsolate();
  g_als = new v8::Global<v8::Object>(isolate, args[0].As<v8::Object>());
  isolate->SetPromiseHook(SwitchHook);
}

void Switched(const v8::FunctionCallbackInfo<v8::Value>& args) {
  args.GetReturnValue().Set(static_cast<double>(g_switched));
}

}  // namespace

NODE_MODULE_INIT(/* exports, module, context */) {
  NODE_SET_METHOD(exports, "installEmpty", InstallEmpty);
  NODE_SET_METHOD(exports, "installSwitch", InstallSwitch);
  NODE_SET_METHOD(exports, "switched", Switched);
}
