// The one unit that uses V8's own C++ API (built per Node.js ABI into
// customlabels-v8-abi<N>.node, loaded only by lib/node-context.js). It answers
// what Node-API cannot: where the isolate keeps ContinuationPreservedEmbedderData,
// the address of a global handle holding our AsyncLocalStorage and its
// identity hash, the tagged `undefined`, and where a wrapper object keeps its
// internal fields; and it makes the wrapper objects (lib/label-set.js extends
// `Wrapper`). Everything it reports is checked by lib/node-context.js, which
// walks a known frame the way readers do before anything is published.
//
// Exports:
//   UNIT_VERSION                    bumped with any change to this interface
//   frameHolds(key, value) -> bool  the continuation data is a Map holding
//                                   key -> value (AsyncContextFrame in use)
//   pin(als) -> {cpedSlot, alsHandle, alsIdentityHash, undefinedValue,
//                taggedSize, jsMapTableOffset, orderedHashMapHeaderSize,
//                labelSetSlotOffset, recordSlotOffset}
//   Wrapper(slab: ArrayBuffer, offset: number)  a constructor for the set
//                                   written at `offset` in `slab`: its address
//                                   and its record's, read from the set's own
//                                   header, go into internal fields 0, 1
#include <node.h>
#include <v8.h>

#include <cstdint>
#include <cstring>

#include "core/scratch_protocol.h"

namespace customlabels::v8unit {

namespace {

using v8::BigInt;
using v8::Context;
using v8::FunctionCallbackInfo;
using v8::FunctionTemplate;
using v8::Global;
using v8::Isolate;
using v8::Local;
using v8::Object;
using v8::Value;
using Address = v8::internal::Address;
using Internals = v8::internal::Internals;

constexpr int kUnitVersion = 2;
constexpr int kFields = 2;

static_assert(sizeof(Global<Object>) == sizeof(void*), "a Global is one slot pointer");

// Per environment (the main thread, each worker).
struct Environment final {
  Global<Object> als;
  bool release_hook = false;
};

void Release(void* arg) {
  static_cast<Environment*>(arg)->als.Reset();
}

void Destroy(void* arg) { delete static_cast<Environment*>(arg); }

void SetField(Local<Object> object, int index, void* pointer) {
#if V8_MAJOR_VERSION >= 14
  object->SetAlignedPointerInInternalField(index, pointer, v8::kEmbedderDataTypeTagDefault);
#else
  object->SetAlignedPointerInInternalField(index, pointer);
#endif
}

void* GetField(Local<Object> object, int index) {
#if V8_MAJOR_VERSION >= 14
  return object->GetAlignedPointerFromInternalField(index, v8::kEmbedderDataTypeTagDefault);
#else
  return object->GetAlignedPointerFromInternalField(index);
#endif
}

Local<Value> ContinuationData(Isolate* isolate) {
#if V8_MAJOR_VERSION >= 14
  Local<v8::Data> data = isolate->GetContinuationPreservedEmbedderDataV2();
  if (data.IsEmpty() || !data->IsValue()) return v8::Undefined(isolate);
  return data.As<Value>();
#else
  return isolate->GetContinuationPreservedEmbedderData();
#endif
}

template <typename T>
Address TaggedOf(Local<T> value) {
  return v8::internal::ValueHelper::ValueAsAddress(*value);
}

Local<BigInt> Big(Isolate* isolate, uint64_t v) { return BigInt::NewFromUnsigned(isolate, v); }

void Throw(Isolate* isolate, const char* message) {
  isolate->ThrowException(v8::Exception::TypeError(
      v8::String::NewFromUtf8(isolate, message).ToLocalChecked()));
}

void FrameHolds(const FunctionCallbackInfo<Value>& args) {
  Isolate* isolate = args.GetIsolate();
  Local<Context> context = isolate->GetCurrentContext();
  Local<Value> frame = ContinuationData(isolate);
  bool holds = false;
  if (frame->IsMap() && args.Length() >= 2) {
    Local<Value> got;
    holds = frame.As<v8::Map>()->Get(context, args[0]).ToLocal(&got) && got->StrictEquals(args[1]);
  }
  args.GetReturnValue().Set(holds);
}

// Two distinct aligned markers, to find where internal fields land.
alignas(8) const uint64_t kMarkers[kFields] = {0x6d61726b65723030ULL, 0x6d61726b65723031ULL};

// The byte offsets of internal fields 0 and 1 in `object`, found by looking
// for the markers among its first words; -1 if absent.
void FieldOffsets(Local<Object> object, int* offsets) {
  const Address start = TaggedOf(object) - 1;
  for (int f = 0; f < kFields; ++f) {
    offsets[f] = -1;
    for (int at = 8; at < 96; at += 8) {
      uint64_t word = 0;
      std::memcpy(&word, reinterpret_cast<const void*>(start + static_cast<Address>(at)), 8);
      if (word == reinterpret_cast<uintptr_t>(&kMarkers[f])) {
        offsets[f] = at;
        break;
      }
    }
  }
}

void Pin(const FunctionCallbackInfo<Value>& args) {
  Isolate* isolate = args.GetIsolate();
  Local<Context> context = isolate->GetCurrentContext();
  auto* env = static_cast<Environment*>(GetField(args.Data().As<Object>(), 0));
  if (args.Length() < 1 || !args[0]->IsObject()) {
    Throw(isolate, "pin() takes an AsyncLocalStorage");
    return;
  }
  Local<Object> als = args[0].As<Object>();
  env->als.Reset(isolate, als);
  if (!env->release_hook) {
    // Registered after the addon's own hooks and before the one that clears
    // the discovery struct (lib/node-context.js publishes after pinning):
    // cleanup hooks run last-in first-out, so the gate closes first.
    node::AddEnvironmentCleanupHook(isolate, Release, env);
    env->release_hook = true;
  }
  Address handle_slot = 0;
  std::memcpy(&handle_slot, &env->als, sizeof(handle_slot));

  // Where a wrapper keeps its fields, from a wrapper of this build.
  Local<Object> probe;
  Local<v8::ObjectTemplate> templ = v8::ObjectTemplate::New(isolate);
  templ->SetInternalFieldCount(kFields);
  int offsets[kFields] = {-1, -1};
  if (templ->NewInstance(context).ToLocal(&probe)) {
    for (int f = 0; f < kFields; ++f) {
      SetField(probe, f, const_cast<uint64_t*>(&kMarkers[f]));
    }
    FieldOffsets(probe, offsets);
  }

  Local<Object> out = Object::New(isolate);
  auto set = [&](const char* name, Local<Value> value) {
    out->Set(context, v8::String::NewFromUtf8(isolate, name).ToLocalChecked(), value).Check();
  };
  auto number = [isolate](int64_t v) { return v8::Number::New(isolate, static_cast<double>(v)); };
  const Address isolate_address = reinterpret_cast<Address>(isolate);
  set("cpedSlot",
      Big(isolate, isolate_address + Internals::kContinuationPreservedEmbedderDataOffset));
  set("alsHandle", Big(isolate, handle_slot));
  set("alsIdentityHash", v8::Integer::New(isolate, als->GetIdentityHash()));
  set("undefinedValue", Big(isolate, TaggedOf(v8::Undefined(isolate))));
  set("taggedSize", number(v8::internal::kApiTaggedSize));
  set("jsMapTableOffset", number(Internals::kJSObjectHeaderSize));
  set("orderedHashMapHeaderSize", number(Internals::kFixedArrayHeaderSize));
  set("labelSetSlotOffset", number(offsets[0]));
  set("recordSlotOffset", number(offsets[1]));
  // The tagged word the continuation data slot holds right now, to check
  // cpedSlot against.
  set("continuationData", Big(isolate, TaggedOf(ContinuationData(isolate))));
  args.GetReturnValue().Set(out);
}

// The set written at `args[1]` in the ArrayBuffer `args[0]`: it must carry
// its own address, and its record (if any) must lie in the same slab, so a
// wrapper never points anywhere else. No BigInt is made or read per set.
void NewWrapper(const FunctionCallbackInfo<Value>& args) {
  Isolate* isolate = args.GetIsolate();
  if (!args.IsConstructCall()) {
    Throw(isolate, "Wrapper is a constructor");
    return;
  }
  namespace scratch = customlabels::core::scratch;
  if (!args[0]->IsArrayBuffer() || !args[1]->IsUint32()) {
    Throw(isolate, "Wrapper takes a slab (ArrayBuffer) and an offset");
    return;
  }
  Local<v8::ArrayBuffer> slab = args[0].As<v8::ArrayBuffer>();
  const size_t offset = args[1].As<v8::Uint32>()->Value();
  const size_t size = slab->ByteLength();
  auto* const data = static_cast<unsigned char*>(slab->Data());
  uint64_t self = 0, record = 0;
  if (data != nullptr && offset % 8 == 0 && offset <= size &&
      size - offset >= scratch::kSetRecordOffset + sizeof(record)) {
    std::memcpy(&self, data + offset + scratch::kSetSelfOffset, sizeof(self));
    std::memcpy(&record, data + offset + scratch::kSetRecordOffset, sizeof(record));
  }
  const uint64_t base = reinterpret_cast<uintptr_t>(data) + offset;
  const uint64_t end = reinterpret_cast<uintptr_t>(data) + size;
  if (self == 0 || self != base || (record != 0 && (record % 8 != 0 || record < base || record >= end))) {
    Throw(isolate, "Wrapper: no customlabels label set at that offset");
    return;
  }
  Local<Object> self_object = args.This();
  SetField(self_object, 0, reinterpret_cast<void*>(static_cast<uintptr_t>(self)));
  SetField(self_object, 1, reinterpret_cast<void*>(static_cast<uintptr_t>(record)));
}

}  // namespace

}  // namespace customlabels::v8unit

NODE_MODULE_INIT(/* exports, module, context */) {
  using namespace customlabels::v8unit;
  Isolate* isolate = Isolate::GetCurrent();
  auto* env = new Environment();
  node::AddEnvironmentCleanupHook(isolate, Destroy, env);
  // The functions' data: an object holding `env` in an internal field.
  Local<v8::ObjectTemplate> holder = v8::ObjectTemplate::New(isolate);
  holder->SetInternalFieldCount(1);
  Local<Object> data = holder->NewInstance(context).ToLocalChecked();
  SetField(data, 0, env);
  auto set = [&](const char* name, Local<Value> value) {
    exports->Set(context, v8::String::NewFromUtf8(isolate, name).ToLocalChecked(), value).Check();
  };
  set("UNIT_VERSION", v8::Integer::New(isolate, kUnitVersion));
  set("frameHolds",
      FunctionTemplate::New(isolate, FrameHolds)->GetFunction(context).ToLocalChecked());
  set("pin", FunctionTemplate::New(isolate, Pin, data)->GetFunction(context).ToLocalChecked());
  Local<FunctionTemplate> wrapper = FunctionTemplate::New(isolate, NewWrapper);
  wrapper->SetClassName(v8::String::NewFromUtf8(isolate, "Wrapper").ToLocalChecked());
  wrapper->InstanceTemplate()->SetInternalFieldCount(kFields);
  set("Wrapper", wrapper->GetFunction(context).ToLocalChecked());
}
