#include "addon.h"

#include <sys/uio.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string_view>

#include "../core/abi.h"
#include "../core/tls_descriptor.h"

namespace customlabels::binding {

namespace {

constexpr uint32_t kRemove = 0xffffffffu;
constexpr size_t kHeader = 8;  // scratch[0..8): the built set's address

struct Bytes {
  void* data = nullptr;
  size_t size = 0;
};

// ArrayBuffer contents, or nothing for null/undefined; throws otherwise.
Bytes BufferArg(const Napi::CallbackInfo& info, size_t i, const char* what) {
  const Napi::Value v = info[i];
  if (v.IsNull() || v.IsUndefined()) return {};
  if (!v.IsArrayBuffer()) {
    throw Napi::TypeError::New(info.Env(),
                               std::string(what) + " must be an ArrayBuffer");
  }
  auto ab = v.As<Napi::ArrayBuffer>();
  return {ab.Data(), ab.ByteLength()};
}

const custom_labels_labelset_t* SetArg(const Napi::CallbackInfo& info,
                                       size_t i) {
  const Bytes b = BufferArg(info, i, "label set");
  if (b.data == nullptr) return nullptr;
  const auto* set = core::LabelSetLayout::Validate(b.data, b.size);
  if (set == nullptr) {
    throw Napi::TypeError::New(info.Env(), "not a customlabels label set");
  }
  return set;
}

}  // namespace

Addon::Addon(Napi::Env env, Napi::Object exports) {
  DefineAddon(
      exports,
      {
          InstanceMethod("build", &Addon::Build),
          InstanceMethod("setCurrent", &Addon::SetCurrent),
          InstanceMethod("tlsSlot", &Addon::TlsSlot),
          InstanceMethod("currentLabels", &Addon::CurrentLabels),
          InstanceMethod("currentSetAddress", &Addon::CurrentSetAddress),
          InstanceMethod("tlsInfo", &Addon::TlsInfo),
          InstanceMethod("peekWord", &Addon::PeekWord),
      });
  // Runs on this environment's thread before V8 frees the ArrayBuffers that
  // hold its label sets (worker exit or termination included), so no reader
  // can follow the pointer into freed memory.
  napi_add_env_cleanup_hook(env, &Addon::ClearCurrent, this);
}

Addon::~Addon() { core::PublishCurrent(nullptr); }

void Addon::ClearCurrent(void*) { core::PublishCurrent(nullptr); }

Napi::Value Addon::Build(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const custom_labels_labelset_t* parent = SetArg(info, 0);
  const Bytes scratch = BufferArg(info, 1, "scratch");
  const uint32_t n = info[2].As<Napi::Number>().Uint32Value();
  auto* base = static_cast<unsigned char*>(scratch.data);
  // Lengths at [8, 8 + 8n), bytes after them; everything bounds-checked.
  if (base == nullptr || (scratch.size - kHeader) / 8 < n) {
    throw Napi::RangeError::New(env, "scratch too small");
  }
  size_t offset = kHeader + size_t{n} * 8;
  builder_.Reset(parent);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t lens[2];
    std::memcpy(lens, base + kHeader + size_t{i} * 8, sizeof(lens));
    const size_t value_len = lens[1] == kRemove ? 0 : lens[1];
    if (lens[0] > scratch.size - offset ||
        value_len > scratch.size - offset - lens[0]) {
      throw Napi::RangeError::New(env, "scratch overflow");
    }
    const std::string_view key(reinterpret_cast<char*>(base + offset), lens[0]);
    offset += lens[0];
    if (lens[1] == kRemove) {
      builder_.Remove(key);
    } else {
      builder_.Set(key, {reinterpret_cast<char*>(base + offset), value_len});
      offset += value_len;
    }
  }
  uint64_t bits = 0;
  Napi::Value result = env.Null();
  if (builder_.count() != 0) {
    const size_t size = builder_.RequiredBytes();
    auto ab = Napi::ArrayBuffer::New(env, size);
    const custom_labels_labelset_t* set = builder_.WriteTo(ab.Data(), size);
    if (set == nullptr) throw Napi::Error::New(env, "misaligned ArrayBuffer");
    bits = reinterpret_cast<uintptr_t>(set);
    // lib/ stores the address into the TLS slot as a Float64Array element;
    // user-space addresses are below 2^52, so the double is a subnormal
    // (never a NaN that V8 could canonicalize) and keeps its bits exactly.
    if ((bits >> 52) != 0) throw Napi::Error::New(env, "address above 2^52");
    result = ab;
  }
  std::memcpy(base, &bits, sizeof(bits));
  return result;
}

Napi::Value Addon::SetCurrent(const Napi::CallbackInfo& info) {
  core::PublishCurrent(SetArg(info, 0));
  return info.Env().Undefined();
}

Napi::Value Addon::TlsSlot(const Napi::CallbackInfo& info) {
  napi_value ab = nullptr;
  const napi_status status = napi_create_external_arraybuffer(
      info.Env(), core::CurrentSlot(), sizeof(void*), nullptr, nullptr, &ab);
  if (status != napi_ok) {
    // napi_no_external_buffers_allowed (V8 sandbox): lib/ falls back to
    // setCurrent(). Drop the pending exception some versions leave.
    napi_value ignored;
    napi_get_and_clear_last_exception(info.Env(), &ignored);
    return info.Env().Null();
  }
  return Napi::Value(info.Env(), ab);
}

Napi::Value Addon::CurrentLabels(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  for (const auto& [key, value] : core::ReadLabelSet(core::LoadCurrent())) {
    // Define rather than assign, so "__proto__" is an ordinary key.
    napi_property_descriptor d{};
    d.name = Napi::String::New(env, key.data(), key.size());
    d.value = Napi::String::New(env, value.data(), value.size());
    d.attributes = static_cast<napi_property_attributes>(
        napi_writable | napi_enumerable | napi_configurable);
    NAPI_THROW_IF_FAILED(env, napi_define_properties(env, out, 1, &d),
                         Napi::Value());
  }
  return out;
}

Napi::Value Addon::CurrentSetAddress(const Napi::CallbackInfo& info) {
  return Napi::BigInt::New(
      info.Env(),
      static_cast<uint64_t>(reinterpret_cast<uintptr_t>(core::LoadCurrent())));
}

Napi::Value Addon::TlsInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const core::TlsDescriptorInfo t = core::InspectTlsDescriptor();
  auto big = [&env](uintptr_t v) {
    return Napi::BigInt::New(env, static_cast<uint64_t>(v));
  };
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
  uint64_t word = 0;
  iovec local{&word, sizeof(word)};
  iovec remote{reinterpret_cast<void*>(static_cast<uintptr_t>(address)),
               sizeof(word)};
  if (!lossless ||
      process_vm_readv(getpid(), &local, 1, &remote, 1, 0) !=
          static_cast<ssize_t>(sizeof(word))) {
    return info.Env().Null();
  }
  return Napi::BigInt::New(info.Env(), word);
}

}  // namespace customlabels::binding

using customlabels::binding::Addon;
NODE_API_ADDON(Addon)
