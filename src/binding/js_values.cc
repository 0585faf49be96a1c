#include "js_values.h"

#include "../core/label_set_builder.h"

namespace customlabels::binding {

Napi::Object LabelsObject(Napi::Env env, const custom_labels_labelset_t* set) {
  Napi::Object out = Napi::Object::New(env);
  for (const auto& [key, value] : core::ReadLabelSet(set)) {
    // Define rather than assign, so "__proto__" is an ordinary key.
    napi_property_descriptor d{};
    d.name = Napi::String::New(env, key.data(), key.size());
    d.value = Napi::String::New(env, value.data(), value.size());
    d.attributes =
        static_cast<napi_property_attributes>(napi_writable | napi_enumerable | napi_configurable);
    NAPI_THROW_IF_FAILED(env, napi_define_properties(env, out, 1, &d), Napi::Object());
  }
  return out;
}

Napi::Value RecordBuffer(Napi::Env env, const otel_thread_ctx_record_t* record) {
  if (record == nullptr) return env.Null();
  return Napi::Buffer<uint8_t>::Copy(
      env, reinterpret_cast<const uint8_t*>(record),
      core::ThreadContextLimits::kHeaderBytes + record->attrs_data_size);
}

}  // namespace customlabels::binding
