// The addon's `testing` export: functions for tests and diagnostics only,
// apart from what lib/ uses (raw ABI words, TLS descriptors, the sets and
// records a reader found), kept out of the Addon class.
#ifndef CUSTOMLABELS_BINDING_TESTING_H_
#define CUSTOMLABELS_BINDING_TESTING_H_

#include <napi.h>

namespace customlabels::binding {

// An object with:
//   currentSetAddress() -> bigint, 0n when NULL.
//   tlsInfo(symbol = 'custom_labels_current_set' | 'otel_thread_ctx_v1' |
//     'otel_thread_ctx_nodejs_v1' | 'custom_labels_als_handle' |
//     'custom_labels_als_identity_hash') -> what a static-TLS reader would
//     compute for it on this thread.
//   peekWord(address: bigint) -> bigint | null: reads 8 bytes of this
//     process (null if unreadable) without faulting. For tests that look at
//     raw ABI words and at another thread's slot as an external reader does.
//   labelsAtAddress(address: bigint) -> {key: value} of the set a reader
//     found at `address` (a set this addon wrote and keeps alive).
//   recordOfSet(address: bigint) -> {address: bigint, bytes: Buffer | null}:
//     the thread context record that set carries (0n and null: none).
//   nodeDiscovery() -> what this thread publishes in
//     otel_thread_ctx_nodejs_v1 (bigints and numbers).
//   currentRecord() -> Buffer: a copy of this thread's thread context
//     record (header and attributes), or null.
Napi::Object TestingExports(Napi::Env env);

}  // namespace customlabels::binding

#endif  // CUSTOMLABELS_BINDING_TESTING_H_
