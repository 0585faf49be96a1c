#include "addon.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "../core/abi.h"
#include "../core/tls_descriptor.h"

namespace customlabels::binding {

namespace {

constexpr uint32_t kRemove = 0xffffffffu;
constexpr size_t kHeader = 16;  // scratch[0..16): build() results

struct Bytes {
  void* data = nullptr;
  size_t size = 0;
};

// Raw N-API here: build() runs once per withLabels, and node-addon-api's
// wrappers would make several more calls per argument.
Bytes BufferArg(napi_env env, napi_value v, const char* what) {
  Bytes b;
  if (napi_get_arraybuffer_info(env, v, &b.data, &b.size) == napi_ok) return b;
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

// The set at (slab, offset), validated; null for a null slab.
const custom_labels_labelset_t* SetArg(napi_env env, napi_value slab, napi_value offset_value) {
  const Bytes b = BufferArg(env, slab, "label set");
  if (b.data == nullptr) return nullptr;
  const uint32_t offset = Uint32Arg(env, offset_value);
  const custom_labels_labelset_t* set =
      offset <= b.size ? core::LabelSetLayout::Validate(
                             static_cast<unsigned char*>(b.data) + offset, b.size - offset)
                       : nullptr;
  if (set == nullptr) {
    throw Napi::TypeError::New(env, "not a customlabels label set");
  }
  return set;
}

}  // namespace

Addon::Addon(Napi::Env env, Napi::Object exports) {
  DefineAddon(exports, {
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
  if (info.Length() < 6) throw Napi::TypeError::New(env, "build() takes 6 arguments");
  const custom_labels_labelset_t* parent = SetArg(env, info[0], info[1]);
  const Bytes scratch = BufferArg(env, info[2], "scratch");
  const uint32_t n = Uint32Arg(env, info[3]);
  const Bytes slab = BufferArg(env, info[4], "slab");
  const uint32_t slab_offset = Uint32Arg(env, info[5]);
  auto* base = static_cast<unsigned char*>(scratch.data);
  // Lengths at [16, 16 + 8n), bytes after them; everything bounds-checked.
  if (base == nullptr || scratch.size < kHeader || (scratch.size - kHeader) / 8 < n) {
    throw Napi::RangeError::New(env, "scratch too small");
  }
  size_t offset = kHeader + size_t{n} * 8;
  builder_.Reset(parent);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t lens[2];
    std::memcpy(lens, base + kHeader + size_t{i} * 8, sizeof(lens));
    const size_t value_len = lens[1] == kRemove ? 0 : lens[1];
    if (lens[0] > scratch.size - offset || value_len > scratch.size - offset - lens[0]) {
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
  // Result: [0..8) the set's address, a uint64 (0: no labels left),
  // [8..12) the slab offset after it, or kRemove if it does not fit,
  // [12..16) the bytes it needs.
  uint64_t bits = 0;
  uint32_t next = slab_offset;
  const size_t size = builder_.count() == 0 ? 0 : builder_.RequiredBytes();
  if (size != 0) {
    if (slab.data == nullptr || slab_offset % 8 != 0 || slab_offset > slab.size ||
        size > slab.size - slab_offset) {
      next = kRemove;
    } else {
      const custom_labels_labelset_t* set =
          builder_.WriteTo(static_cast<unsigned char*>(slab.data) + slab_offset, size);
      if (set == nullptr) throw Napi::Error::New(env, "misaligned slab");
      bits = reinterpret_cast<uintptr_t>(set);
      next = static_cast<uint32_t>((slab_offset + size + 7) & ~size_t{7});
    }
  }
  const uint32_t out[2] = {next, static_cast<uint32_t>(std::min<size_t>(size, kRemove))};
  std::memcpy(base, &bits, sizeof(bits));
  std::memcpy(base + 8, out, sizeof(out));
  return env.Undefined();
}

Napi::Value Addon::SetCurrent(const Napi::CallbackInfo& info) {
  core::PublishCurrent(SetArg(info.Env(), info[0], info[1]));
  return info.Env().Undefined();
}

Napi::Value Addon::TlsSlot(const Napi::CallbackInfo& info) {
  napi_value ab = nullptr;
  const napi_status status = napi_create_external_arraybuffer(info.Env(), core::CurrentSlot(),
                                                              sizeof(void*), nullptr, nullptr, &ab);
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
  const core::TlsDescriptorInfo t = core::InspectTlsDescriptor();
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
  uint64_t word = 0;
  iovec local{&word, sizeof(word)};
  iovec remote{reinterpret_cast<void*>(static_cast<uintptr_t>(address)), sizeof(word)};
  if (!lossless ||
      process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(sizeof(word))) {
    return info.Env().Null();
  }
  return Napi::BigInt::New(info.Env(), word);
}

}  // namespace customlabels::binding

using customlabels::binding::Addon;
NODE_API_ADDON(Addon)
