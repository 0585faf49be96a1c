// The one unit that uses V8's own C++ API (built per Node.js ABI into
// customlabels-v8-abi<N>.node, loaded only by lib/core/node-context.js). It answers
// what Node-API cannot: where the isolate keeps ContinuationPreservedEmbedderData,
// the address of a global handle holding our AsyncLocalStorage and its
// identity hash, the tagged `undefined`, and where a wrapper object keeps its
// internal fields; and it makes the label set objects themselves (shapeSets,
// makeSet), built by the addon's own builder (useBuilder). Everything it
// reports is checked by lib/core/node-context.js, which walks a known frame the
// way readers do before anything is published.
//
// Exports:
//   UNIT_VERSION                    bumped with any change to this interface
//   frameHolds(key, value) -> bool  the continuation data is a Map holding
//                                   key -> value (AsyncContextFrame in use)
//   useBuilder(address: bigint) -> bool
//                                   borrow the addon's builder
//                                   (binding.nativeBuilder(),
//                                   core/native_builder.h) for this thread;
//                                   false if the table is not one this unit
//                                   speaks
//   shapeSets(fields: string[]) -> LabelSet
//                                   the class of the wrapper objects makeSet()
//                                   makes: two internal fields, then `fields`
//                                   (undefined), so lib/ fills them without
//                                   changing their shape; called once, before
//                                   pin(); the class itself cannot be called
//   pin(als) -> {cpedSlot, alsHandle, alsIdentityHash, undefinedValue,
//                taggedSize, jsMapTableOffset, orderedHashMapHeaderSize,
//                labelSetSlotOffset, recordSlotOffset}
//   makeSet(parentSlab, parentOffset, scratch, n, slab, slabOffset)
//                                   the addon's build() (lib/core/protocol.js) and,
//                                   if it wrote a set, a new LabelSet whose
//                                   internal fields 0 and 1 hold the set's
//                                   address and its record's; undefined if it
//                                   wrote none (see the scratch results)
//   retarget(target, source) -> bool
//                                   target (a LabelSet) takes source's set and
//                                   record: internal field 1, then 0, each
//                                   one aligned pointer store, so a reader
//                                   following either field finds a whole
//                                   published object (lib/ keeps both alive);
//                                   false if either is not a LabelSet
#include <node.h>
#include <v8.h>

#include <cstdint>
#include <cstring>

#include "core/native_builder.h"
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

constexpr int kUnitVersion = 4;
constexpr int kFields = 2;

static_assert(sizeof(Global<Object>) == sizeof(void*), "a Global is one slot pointer");

// Per environment (the main thread, each worker).
struct Environment final {
  Global<Object> als;
  Global<v8::ObjectTemplate> set_template;
  Global<FunctionTemplate> set_class;  // to tell our wrappers (retarget)
  const core::NativeBuilder* builder = nullptr;
  void* thread_builder = nullptr;  // builder->create()
  bool release_hook = false;
};

// Before V8 goes: handles into the heap.
void Release(void* arg) {
  auto* env = static_cast<Environment*>(arg);
  env->als.Reset();
  env->set_template.Reset();
  env->set_class.Reset();
}

void Destroy(void* arg) {
  auto* env = static_cast<Environment*>(arg);
  env->set_template.Reset();
  env->set_class.Reset();
  if (env->thread_builder != nullptr) env->builder->destroy(env->thread_builder);
  delete env;
}

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

Local<v8::String> Text(Isolate* isolate, const char* text) {
  return v8::String::NewFromUtf8(isolate, text).ToLocalChecked();
}

void Throw(Isolate* isolate, const char* message, bool type_error = true) {
  isolate->ThrowException(type_error ? v8::Exception::TypeError(Text(isolate, message))
                                     : v8::Exception::RangeError(Text(isolate, message)));
}

// The environment the functions below were made for (their data object's
// internal field 0).
Environment* EnvironmentOf(const FunctionCallbackInfo<Value>& args) {
  return static_cast<Environment*>(GetField(args.Data().As<Object>(), 0));
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

void UseBuilder(const FunctionCallbackInfo<Value>& args) {
  Isolate* isolate = args.GetIsolate();
  Environment* env = EnvironmentOf(args);
  if (args.Length() < 1 || !args[0]->IsBigInt()) {
    Throw(isolate, "useBuilder() takes the address binding.nativeBuilder() returns");
    return;
  }
  bool lossless = false;
  const uint64_t address = args[0].As<BigInt>()->Uint64Value(&lossless);
  const auto* table = reinterpret_cast<const core::NativeBuilder*>(static_cast<uintptr_t>(address));
  // The address comes from the addon this process loaded (lib/ passes
  // binding.nativeBuilder() and nothing else; neither the unit nor the
  // binding is exposed to the app). What is checked here is version skew: that
  // the table speaks this unit's version. It is not a defence against a
  // forged address: code that loads this file itself and passes one can read
  // any memory anyway, and an unmapped address faults here.
  const bool usable = lossless && table != nullptr && address % alignof(core::NativeBuilder) == 0 &&
                      table->magic == core::kNativeBuilderMagic &&
                      table->version == core::kNativeBuilderVersion &&
                      table->size == sizeof(core::NativeBuilder);
  if (!usable) {
    args.GetReturnValue().Set(false);
    return;
  }
  if (env->thread_builder == nullptr || env->builder != table) {
    void* made = table->create();
    if (made == nullptr) {
      args.GetReturnValue().Set(false);
      return;
    }
    if (env->thread_builder != nullptr) env->builder->destroy(env->thread_builder);
    env->builder = table;
    env->thread_builder = made;
  }
  args.GetReturnValue().Set(true);
}

// Calling the class of the wrappers is refused: only makeSet() makes them,
// always pointing at a set it has just written.
void RefuseConstruct(const FunctionCallbackInfo<Value>& args) {
  Throw(args.GetIsolate(), "label sets are made by withLabels(), not constructed");
}

void ShapeSets(const FunctionCallbackInfo<Value>& args) {
  Isolate* isolate = args.GetIsolate();
  Local<Context> context = isolate->GetCurrentContext();
  Environment* env = EnvironmentOf(args);
  if (!env->set_template.IsEmpty()) {
    Throw(isolate, "shapeSets() is called once per thread");
    return;
  }
  if (args.Length() < 1 || !args[0]->IsArray()) {
    Throw(isolate, "shapeSets() takes an array of field names");
    return;
  }
  Local<v8::Array> names = args[0].As<v8::Array>();
  Local<FunctionTemplate> klass = FunctionTemplate::New(isolate, RefuseConstruct);
  klass->SetClassName(Text(isolate, "LabelSet"));
  Local<v8::ObjectTemplate> instance = klass->InstanceTemplate();
  instance->SetInternalFieldCount(kFields);
  for (uint32_t i = 0; i < names->Length(); ++i) {
    Local<Value> name;
    if (!names->Get(context, i).ToLocal(&name)) return;
    if (!name->IsString()) {
      Throw(isolate, "shapeSets() takes an array of field names");
      return;
    }
    instance->Set(name.As<v8::String>(), v8::Undefined(isolate));
  }
  Local<v8::Function> constructor;
  if (!klass->GetFunction(context).ToLocal(&constructor)) return;
  env->set_template.Reset(isolate, instance);
  env->set_class.Reset(isolate, klass);
  args.GetReturnValue().Set(constructor);
}

void Pin(const FunctionCallbackInfo<Value>& args) {
  Isolate* isolate = args.GetIsolate();
  Local<Context> context = isolate->GetCurrentContext();
  Environment* env = EnvironmentOf(args);
  if (args.Length() < 1 || !args[0]->IsObject()) {
    Throw(isolate, "pin() takes an AsyncLocalStorage");
    return;
  }
  if (env->set_template.IsEmpty()) {
    Throw(isolate, "pin() comes after shapeSets()");
    return;
  }
  Local<Object> als = args[0].As<Object>();
  env->als.Reset(isolate, als);
  if (!env->release_hook) {
    // Registered after the addon's own hooks and before the one that clears
    // the discovery struct (lib/core/node-context.js publishes after pinning):
    // cleanup hooks run last-in first-out, so the gate closes first.
    node::AddEnvironmentCleanupHook(isolate, Release, env);
    env->release_hook = true;
  }
  Address handle_slot = 0;
  std::memcpy(&handle_slot, &env->als, sizeof(handle_slot));

  // Where a label set keeps its fields, from one made by this build.
  Local<Object> probe;
  int offsets[kFields] = {-1, -1};
  if (env->set_template.Get(isolate)->NewInstance(context).ToLocal(&probe)) {
    for (int f = 0; f < kFields; ++f) {
      SetField(probe, f, const_cast<uint64_t*>(&kMarkers[f]));
    }
    FieldOffsets(probe, offsets);
  }

  Local<Object> out = Object::New(isolate);
  auto set = [&](const char* name, Local<Value> value) {
    out->Set(context, Text(isolate, name), value).Check();
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

// An ArrayBuffer argument (null and undefined: none); false if it is
// something else.
bool BytesArg(Local<Value> value, unsigned char** data, size_t* size) {
  *data = nullptr;
  *size = 0;
  if (value->IsNullOrUndefined()) return true;
  if (!value->IsArrayBuffer()) return false;
  Local<v8::ArrayBuffer> buffer = value.As<v8::ArrayBuffer>();
  *data = static_cast<unsigned char*>(buffer->Data());
  *size = buffer->ByteLength();
  return true;
}

uint64_t Word(const unsigned char* at) {
  uint64_t word = 0;
  std::memcpy(&word, at, sizeof(word));
  return word;
}

void MakeSet(const FunctionCallbackInfo<Value>& args) {
  Isolate* isolate = args.GetIsolate();
  Environment* env = EnvironmentOf(args);
  if (env->thread_builder == nullptr || env->set_template.IsEmpty()) {
    Throw(isolate, "makeSet() comes after useBuilder() and shapeSets()");
    return;
  }
  unsigned char* parent = nullptr;
  unsigned char* scratch = nullptr;
  unsigned char* slab = nullptr;
  size_t parent_size = 0, scratch_size = 0, slab_size = 0;
  if (args.Length() < 6 || !BytesArg(args[0], &parent, &parent_size) || !args[1]->IsUint32() ||
      !BytesArg(args[2], &scratch, &scratch_size) || !args[3]->IsUint32() ||
      !BytesArg(args[4], &slab, &slab_size) || !args[5]->IsUint32()) {
    Throw(isolate,
          "makeSet() takes (ArrayBuffer | null, offset, ArrayBuffer, count, ArrayBuffer, offset)");
    return;
  }
  namespace scratch_protocol = core::scratch;
  const int status = env->builder->build(env->thread_builder, parent, parent_size,
                                         args[1].As<v8::Uint32>()->Value(), scratch, scratch_size,
                                         args[3].As<v8::Uint32>()->Value(), slab, slab_size,
                                         args[5].As<v8::Uint32>()->Value());
  if (status != 0) {
    bool type_error = false;
    const char* message = env->builder->describe(status, &type_error);
    Throw(isolate, message, type_error);
    return;
  }
  // A successful build wrote its results into the scratch header.
  const uint64_t address = Word(scratch + scratch_protocol::kAddressOffset);
  if (address == 0) return;  // no set (none left, or it did not fit)
  const uint64_t record = Word(scratch + scratch_protocol::kRecordAddressOffset);
  Local<Object> wrapper;
  if (!env->set_template.Get(isolate)
           ->NewInstance(isolate->GetCurrentContext())
           .ToLocal(&wrapper)) {
    return;
  }
  SetField(wrapper, 0, reinterpret_cast<void*>(static_cast<uintptr_t>(address)));
  SetField(wrapper, 1, reinterpret_cast<void*>(static_cast<uintptr_t>(record)));
  args.GetReturnValue().Set(wrapper);
}

void Retarget(const FunctionCallbackInfo<Value>& args) {
  Isolate* isolate = args.GetIsolate();
  Environment* env = EnvironmentOf(args);
  if (env->set_class.IsEmpty() || args.Length() < 2) {
    args.GetReturnValue().Set(false);
    return;
  }
  Local<FunctionTemplate> klass = env->set_class.Get(isolate);
  if (!klass->HasInstance(args[0]) || !klass->HasInstance(args[1])) {
    args.GetReturnValue().Set(false);
    return;
  }
  Local<Object> target = args[0].As<Object>();
  Local<Object> source = args[1].As<Object>();
  SetField(target, 1, GetField(source, 1));
  SetField(target, 0, GetField(source, 0));
  args.GetReturnValue().Set(true);
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
    exports->Set(context, Text(isolate, name), value).Check();
  };
  auto function = [&](v8::FunctionCallback callback) -> Local<Value> {
    return FunctionTemplate::New(isolate, callback, data)->GetFunction(context).ToLocalChecked();
  };
  set("UNIT_VERSION", v8::Integer::New(isolate, kUnitVersion));
  set("frameHolds", function(FrameHolds));
  set("useBuilder", function(UseBuilder));
  set("shapeSets", function(ShapeSets));
  set("pin", function(Pin));
  set("makeSet", function(MakeSet));
  set("retarget", function(Retarget));
}
