#include "addon.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "../core/abi.h"
#include "../core/native_builder.h"
#include "../core/node_context.h"
#include "../core/node_mirrors.h"
#include "../core/node_walk.h"
#include "../core/otel_thread_ctx.h"
#include "../core/process_context_payload.h"
#include "../core/scratch_build.h"
#include "../core/scratch_protocol.h"
#include "../core/tls_descriptor.h"
#include "js_values.h"
#include "own_memory.h"
#include "testing.h"

namespace customlabels::binding {

namespace {

// Raw N-API here: build() runs once per withLabels, and node-addon-api's
// wrappers would make several more calls per argument.
core::ByteSpan BufferArg(napi_env env, napi_value v, const char* what) {
  void* data = nullptr;
  size_t size = 0;
  if (napi_get_arraybuffer_info(env, v, &data, &size) == napi_ok) {
    return {static_cast<unsigned char*>(data), size};
  }
  napi_valuetype type = napi_undefined;
  napi_typeof(env, v, &type);
  if (type == napi_null || type == napi_undefined) return {};
  throw Napi::TypeError::New(env, std::string(what) + " must be an ArrayBuffer");
}

uint32_t Uint32Arg(napi_env env, napi_value v) {
  uint32_t out = 0;
  if (napi_get_value_uint32(env, v, &out) != napi_ok) {
    throw Napi::TypeError::New(env, "expected a number");
  }
  return out;
}

}  // namespace

Addon::Addon(Napi::Env env, Napi::Object exports) {
  DefineAddon(exports, {
                           InstanceMethod("build", &Addon::Build),
                           InstanceMethod("nativeBuilder", &Addon::NativeBuilder),
                           InstanceMethod("setCurrent", &Addon::SetCurrent),
                           InstanceMethod("tlsSlot", &Addon::TlsSlot),
                           InstanceMethod("threadContextSlot", &Addon::ThreadContextSlot),
                           InstanceMethod("tlsSlotPair", &Addon::TlsSlotPair),
                           InstanceMethod("setResource", &Addon::SetResource),
                           InstanceMethod("processContext", &Addon::ProcessContextStatus),
                           InstanceMethod("currentLabels", &Addon::CurrentLabels),
                           InstanceMethod("labelsOf", &Addon::LabelsOf),
                           InstanceMethod("publishNodeContext", &Addon::PublishNodeContext),
                           InstanceMethod("clearNodeContext", &Addon::ClearNodeContext),
                           InstanceMethod("mirrorNodeContext", &Addon::MirrorNodeContext),
                           InstanceMethod("walkNodeContext", &Addon::WalkNodeContext),
                           InstanceMethod("useNodeSchema", &Addon::UseNodeSchema),
                           InstanceMethod("clearWhenIdle", &Addon::ClearWhenIdle),
                           InstanceMethod("hooksDefault", &Addon::HooksDefault),
                           InstanceMethod("setHooksDefault", &Addon::SetHooksDefault),
                           InstanceValue("protocolVersion",
                                         Napi::Number::New(env, core::scratch::kProtocolVersion)),
                           // Functions for tests and diagnostics only (testing.h).
                           InstanceValue("testing", TestingExports(env)),
                       });
  // Runs on this environment's thread before V8 frees the ArrayBuffers that
  // hold its label sets (worker exit or termination included), so no reader
  // can follow the pointer into freed memory.
  napi_add_env_cleanup_hook(env, &Addon::ClearCurrent, this);
  builders_.keys = &keys_;
  env_ = env;
}

Addon::~Addon() {
  ClearCurrent(nullptr);
  ClearNode(nullptr);
}

void Addon::ClearNode(void*) { core::ClearNodeDiscovery(); }

void Addon::ClearCurrent(void*) {
  core::PublishCurrent(nullptr);
  core::PublishThreadContext(nullptr);
}

Napi::Value Addon::Build(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 6) throw Napi::TypeError::New(env, "build() takes 6 arguments");
  const core::BuildStatus status = core::BuildFromScratch(
      &builders_, BufferArg(env, info[0], "label set"), Uint32Arg(env, info[1]),
      BufferArg(env, info[2], "scratch"), Uint32Arg(env, info[3]), BufferArg(env, info[4], "slab"),
      Uint32Arg(env, info[5]));
  if (status == core::BuildStatus::kOk) return env.Undefined();
  bool type_error = false;
  const char* message = core::GetNativeBuilder()->describe(static_cast<int>(status), &type_error);
  if (type_error) throw Napi::TypeError::New(env, message);
  throw Napi::RangeError::New(env, message);
}

Napi::Value Addon::ClearWhenIdle(const Napi::CallbackInfo& info) {
  if (!idle_clear_) idle_clear_ = IdleClear::Start(env_) != nullptr;
  return Napi::Boolean::New(info.Env(), idle_clear_);
}

Napi::Value Addon::NativeBuilder(const Napi::CallbackInfo& info) {
  return Napi::BigInt::New(
      info.Env(), static_cast<uint64_t>(reinterpret_cast<uintptr_t>(core::GetNativeBuilder())));
}

Napi::Value Addon::SetCurrent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  bool valid = false;
  const custom_labels_labelset_t* set =
      core::SetAt(BufferArg(env, info[0], "label set"), Uint32Arg(env, info[1]), &valid);
  if (!valid) throw Napi::TypeError::New(env, "not a customlabels label set");
  // Back to back, as lib/core/publisher.js stores them.
  core::PublishCurrent(set);
  core::PublishThreadContext(set == nullptr ? nullptr : core::LabelSetLayout::RecordOf(set));
  return info.Env().Undefined();
}

namespace {

// An ArrayBuffer over `count` of this thread's TLS pointers, or null.
Napi::Value SlotView(napi_env env, void* slot, size_t count = 1) {
  napi_value ab = nullptr;
  const napi_status status =
      napi_create_external_arraybuffer(env, slot, count * sizeof(void*), nullptr, nullptr, &ab);
  if (status != napi_ok) {
    // napi_no_external_buffers_allowed (V8 sandbox): lib/ falls back to
    // setCurrent(). Drop the pending exception some versions leave.
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
    return Napi::Env(env).Null();
  }
  return Napi::Value(env, ab);
}

const char* StateName(core::ProcessContext::State state) {
  switch (state) {
    case core::ProcessContext::State::kUnpublished:
      return "unpublished";
    case core::ProcessContext::State::kPublished:
      return "published";
    case core::ProcessContext::State::kOtherPublisher:
      return "other-publisher";
    case core::ProcessContext::State::kFailed:
      break;
  }
  return "failed";
}

}  // namespace

Napi::Value Addon::TlsSlot(const Napi::CallbackInfo& info) {
  return SlotView(info.Env(), static_cast<void*>(core::CurrentSlot()));
}

Napi::Value Addon::ThreadContextSlot(const Napi::CallbackInfo& info) {
  return SlotView(info.Env(), static_cast<void*>(core::ThreadContextSlot()));
}

Napi::Value Addon::TlsSlotPair(const Napi::CallbackInfo& info) {
  auto* current = reinterpret_cast<unsigned char*>(core::CurrentSlot());
  auto* record = reinterpret_cast<unsigned char*>(core::ThreadContextSlot());
  if (record != current + sizeof(void*)) return info.Env().Null();
  return SlotView(info.Env(), current, 2);
}

Napi::Value Addon::SetResource(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArray()) {
    throw Napi::TypeError::New(env, "setResource() takes an array of strings");
  }
  const Napi::Array flat = info[0].As<Napi::Array>();
  std::vector<std::pair<std::string, std::string>> pairs;
  for (uint32_t i = 0; i + 1 < flat.Length(); i += 2) {
    const Napi::Value k = flat.Get(i), v = flat.Get(i + 1);
    if (!k.IsString() || !v.IsString()) {
      throw Napi::TypeError::New(env, "setResource() takes an array of strings");
    }
    pairs.emplace_back(k.As<Napi::String>().Utf8Value(), v.As<Napi::String>().Utf8Value());
  }
  core::ProcessContext::Global().SetResource(std::move(pairs));
  return env.Undefined();
}

Napi::Value Addon::ProcessContextStatus(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const core::ProcessContext::Status s = core::ProcessContext::Global().status();
  Napi::Object out = Napi::Object::New(env);
  out.Set("state", StateName(s.state));
  switch (s.kind) {
    case core::ProcessContextMapping::Kind::kMemfd:
      out.Set("mapping", "memfd");
      break;
    case core::ProcessContextMapping::Kind::kAnonymous:
      out.Set("mapping", "anonymous");
      break;
    case core::ProcessContextMapping::Kind::kNone:
      out.Set("mapping", env.Null());
      break;
  }
  out.Set("keys", static_cast<double>(s.keys));
  out.Set("schema", core::ProcessContext::Global().node_schema()
                        ? core::kNodeSchemaVersion
                        : core::kThreadContextSchemaVersion);
  out.Set("payloadBytes", static_cast<double>(s.payload_bytes));
  return out;
}

namespace {

uint64_t BigIntProperty(Napi::Object o, const char* name) {
  const Napi::Value v = o.Get(name);
  if (!v.IsBigInt()) {
    throw Napi::TypeError::New(o.Env(), std::string(name) + " must be a bigint");
  }
  bool lossless = false;
  return v.As<Napi::BigInt>().Uint64Value(&lossless);
}

uint32_t Uint32Property(Napi::Object o, const char* name) {
  const Napi::Value v = o.Get(name);
  if (!v.IsNumber()) throw Napi::TypeError::New(o.Env(), std::string(name) + " must be a number");
  return v.As<Napi::Number>().Uint32Value();
}

core::NodeDiscovery DiscoveryArg(Napi::Value v) {
  if (!v.IsObject()) throw Napi::TypeError::New(v.Env(), "expected the discovery object");
  const Napi::Object o = v.As<Napi::Object>();
  core::NodeDiscovery d;
  d.cped_slot = BigIntProperty(o, "cpedSlot");
  d.als_handle = BigIntProperty(o, "alsHandle");
  d.als_identity_hash = o.Get("alsIdentityHash").As<Napi::Number>().Int32Value();
  d.undefined_value = BigIntProperty(o, "undefinedValue");
  return d;
}

core::NodeLayout LayoutArg(Napi::Value v) {
  if (!v.IsObject()) throw Napi::TypeError::New(v.Env(), "expected the layout object");
  const Napi::Object o = v.As<Napi::Object>();
  core::NodeLayout l;
  l.tagged_size = Uint32Property(o, "taggedSize");
  l.js_map_table_offset = Uint32Property(o, "jsMapTableOffset");
  l.ordered_hash_map_header_size = Uint32Property(o, "orderedHashMapHeaderSize");
  l.label_set_slot_offset = Uint32Property(o, "labelSetSlotOffset");
  l.record_slot_offset = Uint32Property(o, "recordSlotOffset");
  return l;
}

}  // namespace

Napi::Value Addon::CurrentLabels(const Napi::CallbackInfo& info) {
  return LabelsObject(info.Env(), core::LoadCurrent());
}

Napi::Value Addon::LabelsOf(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  bool valid = false;
  const custom_labels_labelset_t* set =
      core::SetAt(BufferArg(env, info[0], "label set"), Uint32Arg(env, info[1]), &valid);
  if (!valid) throw Napi::TypeError::New(env, "not a customlabels label set");
  return LabelsObject(env, set);
}

Napi::Value Addon::PublishNodeContext(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  core::NodeDiscovery d = DiscoveryArg(info[0]);
  d.record_slot_offset = Uint32Arg(env, info[1]);
  if (d.cped_slot == 0 || d.als_handle == 0 || d.record_slot_offset > 255) {
    throw Napi::RangeError::New(env, "publishNodeContext(): incomplete discovery data");
  }
  if (!node_hook_) {
    // After the V8 unit's hook that releases the AsyncLocalStorage's handle
    // (it pins before this is called), so this one runs first: hooks run
    // last-in first-out, and the gate closes before the handle goes.
    napi_add_env_cleanup_hook(env_, &Addon::ClearNode, this);
    node_hook_ = true;
  }
  core::PublishNodeDiscovery(d);
  return env.Undefined();
}

Napi::Value Addon::ClearNodeContext(const Napi::CallbackInfo& info) {
  core::ClearNodeDiscovery();
  return info.Env().Undefined();
}

Napi::Value Addon::MirrorNodeContext(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throw Napi::TypeError::New(env, "mirrorNodeContext(): path must be a string");
  const core::MirrorState state = core::AddNodeMirror(info[0].As<Napi::String>().Utf8Value(), otel_thread_ctx_nodejs_v1);
  return Napi::String::New(env, core::MirrorStateName(state));
}

Napi::Value Addon::WalkNodeContext(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const core::WalkResult r =
      core::WalkNodeContext(OwnMemory(), DiscoveryArg(info[0]), LayoutArg(info[1]));
  Napi::Object out = Napi::Object::New(env);
  out.Set("status", core::WalkStatusName(r.status));
  out.Set("frame", Napi::BigInt::New(env, r.frame));
  out.Set("value", Napi::BigInt::New(env, r.value));
  out.Set("labelSet", Napi::BigInt::New(env, r.label_set));
  out.Set("record", Napi::BigInt::New(env, r.record));
  return out;
}

Napi::Value Addon::UseNodeSchema(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(),
                            core::ProcessContext::Global().UseNodeSchema(LayoutArg(info[0])));
}

Napi::Value Addon::HooksDefault(const Napi::CallbackInfo& info) {
  const int v = core::HooksDefault();
  if (v < 0) return info.Env().Undefined();
  return Napi::Boolean::New(info.Env(), v == 1);
}

Napi::Value Addon::SetHooksDefault(const Napi::CallbackInfo& info) {
  core::SetHooksDefault(info[0].ToBoolean().Value());
  return info.Env().Undefined();
}

}  // namespace customlabels::binding

using customlabels::binding::Addon;
NODE_API_ADDON(Addon)
