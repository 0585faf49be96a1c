#include "testing.h"

#include <cstdint>
#include <string>

#include "../core/abi.h"
#include "../core/label_set_builder.h"
#include "../core/node_context.h"
#include "../core/otel_thread_ctx.h"
#include "../core/tls_descriptor.h"
#include "js_values.h"
#include "own_memory.h"

namespace customlabels::binding {

namespace {

// The set at the bigint address `v`: only what this addon wrote (a set that
// carries its own address and the token, the layout's own check), never an
// arbitrary address.
const custom_labels_labelset_t* OwnSetAt(Napi::Value v) {
  bool lossless = false;
  const uint64_t address = v.IsBigInt() ? v.As<Napi::BigInt>().Uint64Value(&lossless) : 0;
  uint64_t self = 0, token = 0;
  if (!lossless || address == 0 ||
      !ReadOwnWord(address + core::LabelSetLayout::kSelfOffset, &self) ||
      !ReadOwnWord(address + core::LabelSetLayout::kTokenOffset, &token) || self != address ||
      token != core::LabelSetLayout::kToken) {
    throw Napi::TypeError::New(v.Env(), "no customlabels label set at that address");
  }
  return reinterpret_cast<const custom_labels_labelset_t*>(static_cast<uintptr_t>(address));
}

Napi::Value CurrentSetAddress(const Napi::CallbackInfo& info) {
  return Napi::BigInt::New(info.Env(),
                           static_cast<uint64_t>(reinterpret_cast<uintptr_t>(core::LoadCurrent())));
}

Napi::Value TlsInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string name =
      info.Length() > 0 && info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
  core::TlsSymbol which = core::TlsSymbol::kCurrentSet;
  if (name == "otel_thread_ctx_v1") which = core::TlsSymbol::kThreadContext;
  if (name == "otel_thread_ctx_nodejs_v1") which = core::TlsSymbol::kNodeDiscovery;
  if (name == "custom_labels_als_handle") which = core::TlsSymbol::kAlsHandle;
  if (name == "custom_labels_als_identity_hash") which = core::TlsSymbol::kAlsIdentityHash;
  const core::TlsDescriptorInfo t = core::InspectTlsDescriptor(which);
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

Napi::Value PeekWord(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsBigInt()) return info.Env().Null();
  bool lossless = false;
  const uint64_t address = info[0].As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) return info.Env().Null();
  uint64_t word = 0;
  if (!ReadOwnWord(address, &word)) return info.Env().Null();
  return Napi::BigInt::New(info.Env(), word);
}

Napi::Value LabelsAtAddress(const Napi::CallbackInfo& info) {
  return LabelsObject(info.Env(), OwnSetAt(info[0]));
}

Napi::Value RecordOfSet(const Napi::CallbackInfo& info) {
  const custom_labels_labelset_t* set = OwnSetAt(info[0]);
  Napi::Object out = Napi::Object::New(info.Env());
  const otel_thread_ctx_record_t* record = core::LabelSetLayout::RecordOf(set);
  out.Set("address", Napi::BigInt::New(info.Env(),
                                       static_cast<uint64_t>(reinterpret_cast<uintptr_t>(record))));
  out.Set("bytes", RecordBuffer(info.Env(), record));
  return out;
}

Napi::Value NodeDiscovery(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const core::NodeDiscovery d = core::LoadNodeDiscovery();
  Napi::Object out = Napi::Object::New(env);
  out.Set("cpedSlot", Napi::BigInt::New(env, d.cped_slot));
  out.Set("alsHandle", Napi::BigInt::New(env, d.als_handle));
  out.Set("alsIdentityHash", Napi::Number::New(env, d.als_identity_hash));
  out.Set("recordSlotOffset", Napi::Number::New(env, d.record_slot_offset));
  out.Set("undefinedValue", Napi::BigInt::New(env, d.undefined_value));
  return out;
}

Napi::Value CurrentRecord(const Napi::CallbackInfo& info) {
  return RecordBuffer(info.Env(), core::LoadThreadContext());
}

}  // namespace

Napi::Object TestingExports(Napi::Env env) {
  Napi::Object testing = Napi::Object::New(env);
  testing.Set("currentSetAddress", Napi::Function::New(env, CurrentSetAddress, "currentSetAddress"));
  testing.Set("tlsInfo", Napi::Function::New(env, TlsInfo, "tlsInfo"));
  testing.Set("peekWord", Napi::Function::New(env, PeekWord, "peekWord"));
  testing.Set("labelsAtAddress", Napi::Function::New(env, LabelsAtAddress, "labelsAtAddress"));
  testing.Set("recordOfSet", Napi::Function::New(env, RecordOfSet, "recordOfSet"));
  testing.Set("nodeDiscovery", Napi::Function::New(env, NodeDiscovery, "nodeDiscovery"));
  testing.Set("currentRecord", Napi::Function::New(env, CurrentRecord, "currentRecord"));
  return testing;
}

}  // namespace customlabels::binding
