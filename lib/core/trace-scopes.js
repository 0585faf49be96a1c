'use strict';

// Scopes that carry a span's trace ids into their set's thread context
// record (OTEP 4947), over the same thread state as the public API
// (lib/core/thread.js). Not public API: what a tracer's context manager
// builds on.
//
//   withTraceContext(trace, labels, fn)   withLabels whose set carries
//                                         `trace`'s ids; TraceContext.CLEAR
//                                         over a parent that carries none
//                                         runs fn as it is
//   enterTraceContext(trace, labels)      the same for the rest of the
//                                         current execution; returns the
//                                         function that restores
//   retraceSet(trace, labels)             the span's set takes new labels in
//                                         place
//   forgetTraceSet(trace)                 the span's next activation builds
//                                         its set anew
//   setResource(attributes)               the process context's resource
//
// A span's context is activated again and again (every bound callback) over
// the same few sets, so the set last built for a trace is remembered on it
// (lastSet, over lastParent), and on the parent for clearing (untraced).
// These fields are this module's. TraceContext is handed out with the
// scopes: every copy of the package (and every module registry, as Jest
// makes) that shares this instance must make its ids with this one class,
// whose CLEAR these scopes know.

const { checkCallback } = require('./api');
const { readLabels } = require('./labels');
const { retargetSet } = require('./label-set');
const { TraceContext } = require('./trace-context');

function createTraceScopes(thread) {
  const { binding, publisher } = thread;

  // The set of `trace` and `labels` over the current one; undefined:
  // nothing to change.
  function traceSet(trace, labels) {
    const parent = thread.current();
    if (trace === TraceContext.CLEAR) {
      if (parent === null || !parent.traced) return undefined;
      if (parent.untraced !== undefined) return parent.untraced;
    } else if (trace.lastSet !== undefined) {
      if (trace.lastParent === parent) return trace.lastSet;
      // Activated again inside its own scope: nothing changes.
      if (parent === trace.lastSet) return undefined;
    }
    const next = thread.write(parent, labels, trace);
    if (trace === TraceContext.CLEAR) {
      parent.untraced = next;
    } else {
      trace.lastParent = parent;
      trace.lastSet = next;
    }
    return next;
  }

  function withTraceContext(trace, labels, fn) {
    checkCallback(fn);
    thread.mode();
    const next = traceSet(trace, labels);
    return next === undefined ? fn() : thread.runWith(next, fn);
  }

  function enterTraceContext(trace, labels) {
    thread.mode();
    const next = traceSet(trace, labels);
    return next === undefined ? () => {} : thread.enter(next);
  }

  // The span of `trace` has new `labels` (a span's attributes set after it
  // was activated): the set its activations run under (the last
  // one, over trace.lastParent) takes them in place, so every continuation
  // that holds it publishes them from its next switch, and a reader walking
  // V8's continuation data at once; installed on this thread, it is
  // installed again now. Sets of other scopes are untouched (a span's set is
  // its own: traceSet never interns it). Returns whether a set changed.
  function retraceSet(trace, labels) {
    const set = trace.lastSet;
    if (set === undefined || set === null) return false;
    const mode = thread.mode();
    const next = thread.write(trace.lastParent, labels, trace);
    if (next === null || next === set) return false;
    if (mode.writer.makeSet !== null && !mode.node.retarget(set, next)) return false;
    retargetSet(set, next);
    if (publisher.current === set) publisher.install(set);
    return true;
  }

  function forgetTraceSet(trace) {
    trace.lastParent = undefined;
    trace.lastSet = undefined;
  }

  function setResource(attributes) {
    const flat = [];
    for (const [k, v] of Object.entries(attributes)) {
      if (typeof v === 'string') flat.push(k, v);
      else if (typeof v === 'number' || typeof v === 'boolean') flat.push(k, String(v));
    }
    binding.setResource(flat);
  }

  return Object.freeze({ withTraceContext, enterTraceContext, retraceSet, forgetTraceSet, setResource, TraceContext, records: thread.records });
}

// Without an addon: scopes run their code unlabelled.
const unsupportedTraceScopes = Object.freeze({
  withTraceContext(trace, labels, fn) {
    checkCallback(fn);
    readLabels(labels);
    return fn();
  },
  enterTraceContext() {
    return () => {};
  },
  retraceSet() {
    return false;
  },
  forgetTraceSet() {},
  setResource() {},
  TraceContext,
  records: false,
});

module.exports = { createTraceScopes, unsupportedTraceScopes };
