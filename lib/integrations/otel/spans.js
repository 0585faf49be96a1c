'use strict';

// What a span is activated under (customlabels/otel): its ids, read from
// its span context, and its scope, built once per span.

const { TraceContext } = require('../../core').traceScopes;
const { warnOnce } = require('../../core/warnings');

const ID_LABELS = ['trace_id', 'span_id', 'local_root_span_id'];
const DEFAULT_IDS = ['trace_id', 'span_id'];

// What @opentelemetry/api's isSpanContextValid accepts: 32 and 16 hex
// digits (either case, checked by TraceContext.fromHex; labels are
// lowercase, as the W3C Trace Context writes them), not all zero.
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

// Its ids for the record: a TraceContext, or null where the span context
// is not valid (TraceContext.fromHex checks the hex digits once).
function traceOf(sc) {
  if (sc === null || typeof sc !== 'object' || sc.traceId === ZERO_TRACE || sc.spanId === ZERO_SPAN) return null;
  return TraceContext.fromHex(sc.traceId, sc.spanId, sc.traceFlags ?? 0);
}

// spanLabels threw or returned what is not labels: the span is published
// with its ids alone, and the application never sees the error.
function warnSpanLabels(err) {
  warnOnce('span-labels', `customlabels/otel: options.spanLabels failed (${err && err.message}); spans are labelled with their ids only`, 'CUSTOMLABELS_SPAN_LABELS');
}

// What a span is activated under, built once per span: its ids for the
// record (`trace`, a TraceContext), its labels, its local root span id, and
// whether options.spanLabels is still to be asked. The private brand tells
// one made here from anything a span (a Proxy) could answer with.
class SpanScope {
  #made = true;

  constructor(span, trace, labels, root, pending) {
    this.span = span;
    this.trace = trace;
    this.labels = labels;
    this.root = root;
    this.pending = pending;
    this.ids = labels; // the id labels alone
    this.extra = null; // spanLabels' labels
    this.attributes = null; // the labels of the span's attributes
    this.rpc = undefined; // the RPC metadata of a server span (observeRoute)
  }

  static is(x) {
    return typeof x === 'object' && x !== null && #made in x;
  }
}

// The span a context holds (the key @opentelemetry/api's trace.setSpan
// uses; the same Symbol.for in every copy of the API).
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

function spanOf(context) {
  if (context === null || typeof context !== 'object' || typeof context.getValue !== 'function') return undefined;
  const span = context.getValue(SPAN_KEY);
  return span !== null && typeof span === 'object' && typeof span.spanContext === 'function' ? span : undefined;
}

// The parent span id of a span of @opentelemetry/sdk-trace-base (2.x:
// parentSpanContext; 1.x: parentSpanId) and whether that parent is in this
// process; undefined if the span has no parent.
function parentOf(span) {
  const psc = span.parentSpanContext;
  if (psc !== undefined && psc !== null) return { spanId: psc.spanId, remote: psc.isRemote === true };
  if (typeof span.parentSpanId === 'string' && span.parentSpanId !== '') return { spanId: span.parentSpanId, remote: false };
  return undefined;
}

module.exports = { ID_LABELS, DEFAULT_IDS, traceOf, warnSpanLabels, SpanScope, spanOf, parentOf };
