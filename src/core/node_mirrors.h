// Other modules' otel_thread_ctx_nodejs_v1. The Node.js design doc's readers
// (PR #1861) keep one module exporting that symbol per process, the one
// they attached last, and no load order decides which. Where another
// module's copy is a plain struct left all zero on a thread, customlabels
// writes its own discovery there too, and a reader that keeps either module
// walks customlabels' AsyncLocalStorage. A copy its module has filled is
// never touched: that writer's context is its own.
//
// A copy that is a C++ thread_local with a dynamic initialiser (its module
// exports the TLS init function _ZTH<n>otel_thread_ctx_nodejs_v1) is never
// written either ('unsafe'): its module owns what the fields point to.
// @datadog/pprof 5.20's dd_pprof.node is one: its init function resets
// some fields and registers a destructor that frees `als_handle` as a V8
// handle at thread exit, and its StoreAls registers its environment
// cleanup only while `undefined_addr` is zero; a copy customlabels had
// filled made the process crash at thread exit once pprof's own context was
// entered on that thread (found in review, test/js/other-writers.test.js
// keeps the case).
//
// Every store is on the calling thread's own copy, the only thread that
// writes it (each module writes a thread's copy from that thread).
#ifndef CUSTOMLABELS_CORE_NODE_MIRRORS_H_
#define CUSTOMLABELS_CORE_NODE_MIRRORS_H_

#include <string>

#include "node_context.h"

namespace customlabels::core {

enum class MirrorState {
  kMirrored,  // the copy now carries customlabels' discovery
  kClaimed,   // its module filled it: left alone
  kUnsafe,    // a C++ thread_local its module initialises and destroys: never written
  kAbsent,    // the module is not loaded, exports no such symbol, or is ours;
              // or the calling thread published nothing yet
};

const char* MirrorStateName(MirrorState s) noexcept;

// Remembers `path` (a loaded module's file) for every thread's later
// publications, and mirrors `ours` (the calling thread's published
// discovery; nothing while its gate is closed) into its copy.
MirrorState AddNodeMirror(const std::string& path, const otel_thread_ctx_nodejs_v1_t& ours);

// For node_context.cc: after `ours` is published, each remembered module's
// copy that is all zero gets it (gate last); before it is cleared, each copy
// that still holds exactly `ours` is cleared (gate first).
void MirrorNodeDiscovery(const otel_thread_ctx_nodejs_v1_t& ours) noexcept;
void ClearNodeMirrors(const otel_thread_ctx_nodejs_v1_t& ours) noexcept;

// The calling thread's state of one copy (for tests and diagnostics).
MirrorState MirrorStateOf(const otel_thread_ctx_nodejs_v1_t* copy,
                          const otel_thread_ctx_nodejs_v1_t& ours) noexcept;

}  // namespace customlabels::core

#endif  // CUSTOMLABELS_CORE_NODE_MIRRORS_H_
