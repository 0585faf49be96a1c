// Other modules' otel_thread_ctx_nodejs_v1. The Node.js design doc's readers
// (PR #1861) keep one module exporting that symbol per process, the one
// they attached last, and no load order decides which. @datadog/pprof 5.16+
// exports the same symbol from dd_pprof.node and fills it only when its own
// thread context is entered (dd-trace with DD_TRACE_OTEL_CTX_ENABLED). So
// where its copy is unclaimed (all zero) on a thread, customlabels writes
// its own discovery there too, and a reader that keeps either module walks
// customlabels' AsyncLocalStorage. A copy its module has filled is never
// touched: that writer's context is its own.
//
// Every store is on the calling thread's own copy, the only thread that
// writes it (each module writes a thread's copy from that thread).
// dd_pprof.node 5.20's own code only writes its copy (StoreAls when its
// context is first entered, ResetDiscoveryStruct at environment cleanup);
// its profiler never reads it (its disassembly: the only reader is
// GetStoredAlsHash, a test accessor no JS of pprof or dd-trace calls).
#ifndef CUSTOMLABELS_CORE_NODE_MIRRORS_H_
#define CUSTOMLABELS_CORE_NODE_MIRRORS_H_

#include <string>

#include "node_context.h"

namespace customlabels::core {

enum class MirrorState {
  kMirrored,  // the copy now carries customlabels' discovery
  kClaimed,   // its module filled it: left alone
  kAbsent,    // the module is not loaded, exports no such symbol, or is ours
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
