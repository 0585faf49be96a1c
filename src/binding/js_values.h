// Label sets and thread context records as JS values (the addon's
// currentLabels()/labelsOf() and the test-only helpers of testing.h).
#ifndef CUSTOMLABELS_BINDING_JS_VALUES_H_
#define CUSTOMLABELS_BINDING_JS_VALUES_H_

#include <napi.h>

#include "../core/abi.h"
#include "../core/otel_thread_ctx.h"

namespace customlabels::binding {

// {key: value} of `set` (null: {}), "__proto__" an ordinary key.
Napi::Object LabelsObject(Napi::Env env, const custom_labels_labelset_t* set);

// A copy of `record` as a reader reads it (header and attributes), or null.
Napi::Value RecordBuffer(Napi::Env env, const otel_thread_ctx_record_t* record);

}  // namespace customlabels::binding

#endif  // CUSTOMLABELS_BINDING_JS_VALUES_H_
