#include "addon.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "../core/abi.h"
#include "../core/otel_thread_ctx.h"
#include "../core/scratch_build.h"
#include "../core/scratch_protocol.h"
#include "../core/tls_descriptor.h"

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
  // Functions for tests and diagnostics only, apart from what lib/ uses.
  Napi::Object testing = Napi::Object::New(env);
  DefineProperties(testing, {
                                InstanceMethod("currentSetAddress", &Addon::CurrentSetAddress),
                                InstanceMethod("tlsInfo", &Addon::TlsInfo),
                                InstanceMethod("peekWord", &Addon::PeekWord),
                                InstanceMethod("currentRecord", &Addon::CurrentRecord),
                            });
  DefineAddon(exports, {
                           InstanceMethod("build", &Addon::Build),
                           InstanceMethod("setCurrent", &Addon::SetCurrent),
                           InstanceMethod("tlsSlot", &Addon::TlsSlot),
                           InstanceMethod("threadContextSlot", &Addon::ThreadContextSlot),
                           InstanceMethod("tlsSlotPair", &Addon::TlsSlotPair),
                           InstanceMethod("setResource", &Addon::SetResource),
                           InstanceMethod("processContext", &Addon::ProcessContextStatus),
                           InstanceMethod("currentLabels", &Addon::CurrentLabels),
                           InstanceValue("protocolVersion",
                                         Napi::Number::New(env, core::scratch::kProtocolVersion)),
                           InstanceValue("testing", testing),
                       });
  // Runs on this environment's thread before V8 frees the ArrayBuffers that
  // hold its label sets (worker exit or termination included), so no reader
  // can follow the pointer into freed memory.
  napi_add_env_cleanup_hook(env, &Addon::ClearCurrent, this);
  builders_.keys = &keys_;
}

Addon::~Addon() { ClearCurrent(nullptr); }

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
  switch (status) {
    case core::BuildStatus::kOk:
      return env.Undefined();
    case core::BuildStatus::kBadParent:
      throw Napi::TypeError::New(env, "not a customlabels label set");
    case core::BuildStatus::kScratchTooSmall:
      throw Napi::RangeError::New(env, "scratch too small");
    case core::BuildStatus::kScratchOverflow:
      throw Napi::RangeError::New(env, "scratch overflow");
    case core::BuildStatus::kBadTraceOp:
      throw Napi::RangeError::New(env, "unknown trace operation");
    case core::BuildStatus::kBadSlab:
      break;
  }
  throw Napi::RangeError::New(env, "slab offset misaligned or overlapping its inputs");
}

Napi::Value Addon::SetCurrent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  bool valid = false;
  const custom_labels_labelset_t* set =
      core::SetAt(BufferArg(env, info[0], "label set"), Uint32Arg(env, info[1]), &valid);
  if (!valid) throw Napi::TypeError::New(env, "not a customlabels label set");
  // Back to back, as lib/publisher.js stores them.
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
  out.Set("payloadBytes", static_cast<double>(s.payload_bytes));
  return out;
}

Napi::Value Addon::CurrentRecord(const Napi::CallbackInfo& info) {
  const otel_thread_ctx_record_t* record = core::LoadThreadContext();
  if (record == nullptr) return info.Env().Null();
  return Napi::Buffer<uint8_t>::Copy(
      info.Env(), reinterpret_cast<const uint8_t*>(record),
      core::ThreadContextLimits::kHeaderBytes + record->attrs_data_size);
}

Napi::Value Addon::CurrentLabels(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  for (const auto& [key, value] : core::ReadLabelSet(core::LoadCurrent())) {
    // Define rather than assign, so "__proto__" is an ordinary key.
    napi_property_descriptor d{};
    d.name = Napi::String::New(env, key.data(), key.size());
    d.value = Napi::String::New(env, value.data(), value.size());
    d.attributes =
        static_cast<napi_property_attributes>(napi_writable | napi_enumerable | napi_configurable);
    NAPI_THROW_IF_FAILED(env, napi_define_properties(env, out, 1, &d), Napi::Value());
  }
  return out;
}

Napi::Value Addon::CurrentSetAddress(const Napi::CallbackInfo& info) {
  return Napi::BigInt::New(info.Env(),
                           static_cast<uint64_t>(reinterpret_cast<uintptr_t>(core::LoadCurrent())));
}

Napi::Value Addon::TlsInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const bool otel = info.Length() > 0 && info[0].IsString() &&
                    info[0].As<Napi::String>().Utf8Value() == "otel_thread_ctx_v1";
  const core::TlsDescriptorInfo t = core::InspectTlsDescriptor(
      otel ? core::TlsSymbol::kThreadContext : core::TlsSymbol::kCurrentSet);
  auto big = [&env](uintptr_t v) { return Napi::BigInt::New(env, static_cast<uint64_t>(v)); };
  Napi::Object out = Napi::Object::New(env);
  out.Set("found", t.found);
  out.Set("staticTls", t.static_tls);
  out.Set("modulePath", t.module_path);
  out.Set("moduleBase", big(t.module_base));
  out.Set("descriptorAddress", big(t.descriptor_address));
  out.Set("resolver", big(t.resolver));
  out.Set("argument", big(t.argument));
  out.Set("threadPointer", big(t.thread_pointer));
  out.Set("variableAddress", big(t.variable_address));
  return out;
}

Napi::Value Addon::PeekWord(const Napi::CallbackInfo& info) {
  bool lossless = false;
  const uint64_t address = info[0].As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) return info.Env().Null();
  // Through a pipe: write(2) copies from the address or fails with EFAULT,
  // never faults, and (unlike process_vm_readv) also works under qemu-user,
  // whose guest addresses are not the host's.
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return info.Env().Null();
  uint64_t word = 0;
  const bool ok = write(fds[1], reinterpret_cast<const void*>(static_cast<uintptr_t>(address)),
                        sizeof(word)) == static_cast<ssize_t>(sizeof(word)) &&
                  read(fds[0], &word, sizeof(word)) == static_cast<ssize_t>(sizeof(word));
  close(fds[0]);
  close(fds[1]);
  if (!ok) return info.Env().Null();
  return Napi::BigInt::New(info.Env(), word);
}

}  // namespace customlabels::binding

using customlabels::binding::Addon;
NODE_API_ADDON(Addon)
