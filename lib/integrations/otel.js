'use strict';

// customlabels/otel: an OpenTelemetry context manager that publishes the
// active span to profilers. It wraps another context manager (by default
// AsyncLocalStorageContextManager from @opentelemetry/context-async-hooks)
// and, whenever that one activates a context (with(), and so bind(), and
// attach()), runs the activation under the current labels plus
//   trace_id, span_id       of the context's span (lowercase hex), and
//   local_root_span_id      the first span of the trace in this process,
//                           when asked for (fewer distinct values than span_id)
//   labels from the span's attributes (options.attributes, below), kept
//                           current as the span's attributes change;
//   options.spanLabels(span) labels of the user's own, taken once per span
//                           when it first becomes active;
// where the context holds no valid span, these labels are removed.
//
// Attributes. By default these attributes of the active span become labels
// (the first one present wins where several give one label):
//   http.route, next.route                   route (next.route without its
//                                            /page or /route suffix)
//   http.request.method, http.method         method
//   rpc.service, rpc.method                  rpc.service, rpc.method
//   messaging.destination.name               queue
//   graphql.operation.name, .type            graphql.operation, graphql.type
// options.attributes adds to them ({ 'my.attr': 'label' }) or turns one off
// ({ 'rpc.method': null }); `attributes: false` turns all off. Values are
// cut to what readers keep (53 bytes); only strings, numbers and booleans
// count. Attributes that make a new value per request (ids, full URLs,
// addresses, statements: HIGH_CARDINALITY) are refused unless the mapping
// says { label, highCardinality: true }.
// An attribute set after the span was activated (the route, once routing
// ran) reaches every continuation of that span from its next switch on
// (with hooks; hook-free readers at once): the span's set is rewritten in
// place (lib/core/api.js retraceSet), so continuations made before the change
// publish the new labels too. Scopes opened inside the span before the
// change (withLabels) keep what they were opened with; other spans' sets
// are never touched. The SDK's Span#setAttribute and #setAttributes are
// wrapped once per span class to learn of the change. The same
// ids go into the thread's OTEP 4947 thread context record (README "Traces
// and profiles"), and options.resource into the OTEP 4719 process context.
//
// @opentelemetry/* packages are peer dependencies: nothing here requires
// them until a context manager is created without options.contextManager.

const { traceScopes } = require('../core');
const { TraceContext } = require('../core/trace-context');
const errors = require('../core/errors');
const { warnOnce } = require('../core/warnings');
const { readLabels } = require('../core/labels');

const { cutValue } = require('./reader-limits');

const { withTraceContext, enterTraceContext, retraceSet, forgetTraceSet, setResource } = traceScopes;

// [attribute, label] in order of precedence; a label is given by the first
// attribute present.
const DEFAULT_ATTRIBUTES = Object.freeze([
  ['http.route', 'route'],
  ['next.route', 'route'],
  ['http.request.method', 'method'],
  ['http.method', 'method'],
  ['rpc.service', 'rpc.service'],
  ['rpc.method', 'rpc.method'],
  ['messaging.destination.name', 'queue'],
  ['graphql.operation.name', 'graphql.operation'],
  ['graphql.operation.type', 'graphql.type'],
]);
// Attributes whose values are new per request (refused by default).
const HIGH_CARDINALITY = new Set([
  'url.full', 'url.path', 'url.query', 'url.fragment', 'http.url', 'http.target', 'http.client_ip',
  'client.address', 'client.port', 'server.port', 'network.peer.address', 'network.peer.port',
  'network.local.address', 'network.local.port', 'user_agent.original', 'http.user_agent',
  'db.statement', 'db.query.text', 'graphql.document', 'exception.message', 'exception.stacktrace',
]);
const isHighCardinality = (attribute) => HIGH_CARDINALITY.has(attribute) || /(^|[._])(id|uuid)$/i.test(attribute);
// next.route of an app route handler is '/api/items/[id]/route' on Next.js 15.
const VALUE_OF = { 'next.route': (v) => v.replace(/\/(route|page)$/, '') || '/' };

// The mapping options.attributes asks for: [[attribute, label], ...].
function attributeMapping(option) {
  if (option === false) return [];
  if (option === undefined || option === null) return DEFAULT_ATTRIBUTES;
  if (typeof option !== 'object' || Array.isArray(option)) throw errors.invalidOption('attributes', 'an object (attribute -> label) or false', option);
  const out = new Map(DEFAULT_ATTRIBUTES);
  for (const [attribute, spec] of Object.entries(option)) {
    if (spec === null || spec === false) {
      out.delete(attribute);
      continue;
    }
    const label = typeof spec === 'string' ? spec : spec !== null && typeof spec === 'object' ? spec.label : undefined;
    if (typeof label !== 'string' || label === '') {
      throw errors.invalidOption(`attributes['${attribute}']`, "a label name, { label, highCardinality }, or null", spec);
    }
    if (isHighCardinality(attribute) && !(typeof spec === 'object' && spec.highCardinality === true)) {
      const err = new TypeError(
        `customlabels/otel: attribute "${attribute}" has a new value per request (an id, a full URL, an address): every request would build a label set of its own and profiles could not be grouped by it. Map it with { label: '${label}', highCardinality: true } if that is what you want.`,
      );
      err.code = 'ERR_CUSTOMLABELS_HIGH_CARDINALITY';
      throw err;
    }
    out.set(attribute, label);
  }
  return [...out];
}

// The labels `attributes` (a span's) give under `mapping`, or null if none;
// `route`: the route its RPC metadata holds (below), standing in for an
// http.route the span does not have yet.
function labelsOfAttributes(attributes, mapping, route) {
  if ((attributes === null || typeof attributes !== 'object') && route === undefined) return null;
  let out = null;
  for (let i = 0; i < mapping.length; i++) {
    const [attribute, label] = mapping[i];
    if (out !== null && out[label] !== undefined) continue;
    let v = attributes !== null && typeof attributes === 'object' ? attributes[attribute] : undefined;
    if (v === undefined && attribute === 'http.route') v = route;
    if (typeof v === 'number' || typeof v === 'boolean') v = String(v);
    else if (typeof v !== 'string' || v === '') continue;
    const transform = VALUE_OF[attribute];
    if (transform !== undefined) v = transform(v);
    if (out === null) out = {};
    out[label] = cutValue(v);
  }
  return out;
}

// The RPC metadata OpenTelemetry's HTTP server instrumentation puts in the
// context of its server span (@opentelemetry/core's RPC_METADATA_KEY, a
// Symbol.for): the framework instrumentations (Express, Fastify, Koa, hapi)
// set its `route` once routing ran, and the HTTP instrumentation copies it
// into the span's http.route only when the response ends. So a route set
// there is the server span's http.route from then on: the property is
// observed (an accessor in its place) for the span it belongs to.
const RPC_METADATA = Symbol.for('OpenTelemetry SDK Context Key RPC_METADATA');

function observeRoute(context, span, changed) {
  let meta;
  try {
    meta = context.getValue(RPC_METADATA);
  } catch {
    return undefined;
  }
  if (meta === null || typeof meta !== 'object' || meta.span !== span) return undefined;
  const desc = Object.getOwnPropertyDescriptor(meta, 'route');
  if (desc !== undefined && (desc.get !== undefined || !desc.configurable)) return meta; // observed already, or fixed
  let route = desc === undefined ? undefined : desc.value;
  try {
    Object.defineProperty(meta, 'route', {
      enumerable: true,
      configurable: true,
      get: () => route,
      set: (value) => {
        route = value;
        changed();
      },
    });
  } catch {
    // A frozen metadata object: its route is read, not observed.
  }
  return meta;
}

const routeOf = (meta) => (meta === undefined || typeof meta.route !== 'string' ? undefined : meta.route);

function sameLabels(a, b) {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (a[k] !== b[k]) return false;
  return true;
}

// Managers with a mapping, told when a mapped attribute of a span changes
// (through the span class's setAttribute/setAttributes, wrapped once).
const watchers = new Set();
const kSpanPatched = Symbol.for('customlabels.otel.setAttribute');
let batching = 0;

function attributesChanged(span) {
  for (const manager of watchers) manager._attributesChanged(span);
}

function watchSpanClass(span) {
  let proto = Object.getPrototypeOf(span);
  while (proto !== null && !Object.prototype.hasOwnProperty.call(proto, 'setAttribute')) proto = Object.getPrototypeOf(proto);
  if (proto === null || proto === Object.prototype || Object.prototype.hasOwnProperty.call(proto, kSpanPatched)) return;
  try {
    Object.defineProperty(proto, kSpanPatched, { value: true });
    const setAttribute = proto.setAttribute;
    const mapped = (key) => {
      for (const manager of watchers) if (manager._mapped.has(key)) return true;
      return false;
    };
    proto.setAttribute = function setAttribute_(key, value) {
      const out = setAttribute.call(this, key, value);
      if (batching === 0 && mapped(key)) attributesChanged(this);
      return out;
    };
    const setAttributes = proto.setAttributes;
    if (typeof setAttributes === 'function') {
      proto.setAttributes = function setAttributes_(attributes) {
        batching++;
        let out;
        try {
          out = setAttributes.call(this, attributes);
        } finally {
          batching--;
        }
        if (batching === 0 && attributes !== null && typeof attributes === 'object' && Object.keys(attributes).some(mapped)) attributesChanged(this);
        return out;
      };
    }
  } catch {
    // A frozen class: attributes set after activation are not seen.
  }
}

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

function resourceAttributes(resource) {
  if (resource === undefined) return undefined;
  if (resource === null || typeof resource !== 'object') throw errors.invalidOption('resource', 'a Resource or an object', resource);
  const attributes = 'attributes' in resource && typeof resource.attributes === 'object' ? resource.attributes : resource;
  return attributes ?? {};
}

class CustomLabelsContextManager {
  constructor(options = {}) {
    if (typeof options !== 'object' || options === null) throw errors.invalidOption('', 'an object', options);
    const { contextManager, ids = DEFAULT_IDS, spanLabels, resource, attributes: attributeOption } = options;
    const mapping = attributeMapping(attributeOption);
    if (!Array.isArray(ids) || ids.some((id) => !ID_LABELS.includes(id))) {
      throw errors.invalidOption('ids', `an array of ${ID_LABELS.map((l) => `'${l}'`).join(', ')}`, ids);
    }
    if (spanLabels !== undefined && typeof spanLabels !== 'function') throw errors.invalidOption('spanLabels', 'a function', spanLabels);
    const inner = contextManager ?? defaultContextManager();
    for (const m of ['active', 'with', 'bind', 'enable', 'disable']) {
      if (typeof inner?.[m] !== 'function') throw errors.invalidOption('contextManager', 'a ContextManager', inner);
    }
    const attributes = resourceAttributes(resource);
    if (attributes !== undefined) setResource(attributes);

    this._inner = inner;
    this._ids = { trace: ids.includes('trace_id'), span: ids.includes('span_id'), root: ids.includes('local_root_span_id') };
    this._spanLabels = spanLabels;
    this._mapping = mapping;
    this._mapped = new Set(mapping.map(([attribute]) => attribute));
    if (mapping.length !== 0) watchers.add(this);
    // span -> its TraceContext and labels, built once: on the span itself,
    // under a symbol of this manager's (a WeakMap keyed by short-lived spans
    // costs the garbage collector microseconds per span: bench/otel-scope.js),
    // or, for a span that takes no property (frozen, a Proxy), in a WeakMap.
    this._scopeKey = Symbol('customlabels.otel scope');
    this._spans = new WeakMap();
    // The labels that take the ids away where no span is active.
    this._removals = Object.freeze(Object.fromEntries(ID_LABELS.filter((l) => ids.includes(l)).map((l) => [l, null])));
    // Every activation by the inner manager goes through with(), bind()
    // included (it calls this.with on itself), so with() of that instance
    // is what runs under the span's labels.
    const innerWith = inner.with;
    const manager = this;
    inner.with = function withLabelledContext(context, fn, thisArg, ...args) {
      const scope = manager._scopeOf(context);
      const self = this;
      const run = args.length === 0 ? () => innerWith.call(self, context, fn, thisArg) : () => innerWith.call(self, context, fn, thisArg, ...args);
      return withTraceContext(scope.trace, scope.labels, run);
    };
    if (typeof inner.attach === 'function') {
      const innerAttach = inner.attach;
      inner.attach = function attachLabelledContext(context) {
        const scope = manager._scopeOf(context);
        const restore = enterTraceContext(scope.trace, scope.labels);
        const token = innerAttach.call(this, context);
        let disposed = false;
        return {
          dispose() {
            if (disposed) return;
            disposed = true;
            token.dispose();
            restore();
          },
          [Symbol.dispose]() {
            this.dispose();
          },
        };
      };
      this.attach = (context) => inner.attach(context);
    }
  }

  // {trace, labels} to run an activation of `context` under (the span's, or
  // TraceContext.CLEAR and the removals where the context holds no valid
  // span).
  _scopeOf(context) {
    const span = spanOf(context);
    if (span === undefined) return { trace: TraceContext.CLEAR, labels: this._removals };
    let scope = this._scopeOfSpan(span);
    if (scope === undefined) {
      scope = this._newScope(span, context);
      this._remember(span, scope);
      if (scope.pending) this._addSpanLabels(span, scope);
    }
    return scope;
  }

  // A scope counts only if it is this span's own (scope.span): not one a
  // span created by Object.create(span) inherits, nor what a Proxy's get
  // trap makes up; a trap that throws is never the application's problem.
  _scopeOfSpan(span) {
    let scope;
    try {
      scope = span[this._scopeKey];
    } catch {
      scope = undefined;
    }
    if (SpanScope.is(scope) && scope.span === span) return scope;
    return this._spans.get(span);
  }

  // Not enumerable: util.inspect, deep equality and spreads of the span do
  // not see it.
  _remember(span, scope) {
    try {
      Object.defineProperty(span, this._scopeKey, { value: scope, writable: true, configurable: true });
      if (this._scopeOfSpan(span) === scope) return;
    } catch {
      // Frozen or sealed, or a Proxy whose traps refuse: remembered below.
    }
    this._spans.set(span, scope);
  }

  // The span's scope with its ids; spanLabels are added after it is stored
  // (a spanLabels that activates the span itself then finds it).
  _newScope(span, context) {
    const sc = span.spanContext();
    const trace = traceOf(sc);
    if (trace === null) return new SpanScope(span, TraceContext.CLEAR, this._removals, undefined, false);
    const traceId = sc.traceId.toLowerCase();
    const spanId = sc.spanId.toLowerCase();
    const labels = {};
    if (this._ids.trace) labels.trace_id = traceId;
    if (this._ids.span) labels.span_id = spanId;
    const root = this._ids.root ? this._localRoot(span, spanId) : undefined;
    if (root !== undefined) labels.local_root_span_id = root;
    const scope = new SpanScope(span, trace, labels, root, this._spanLabels !== undefined);
    if (this._mapping.length !== 0) {
      watchSpanClass(span);
      if (this._mapped.has('http.route')) scope.rpc = observeRoute(context, span, () => this._attributesChanged(span));
      scope.attributes = labelsOfAttributes(span.attributes, this._mapping, routeOf(scope.rpc));
      if (scope.attributes !== null) scope.labels = { ...scope.attributes, ...labels };
    }
    return scope;
  }

  // The span's labels: its attributes', spanLabels', then its ids (which
  // win).
  static _labelsOf(scope) {
    if (scope.attributes === null && scope.extra === null) return scope.ids;
    return { ...scope.attributes, ...scope.extra, ...scope.ids };
  }

  // A mapped attribute of `span` was set: where it changes the span's
  // labels, its set takes them in place.
  _attributesChanged(span) {
    const scope = this._scopeOfSpan(span);
    if (scope === undefined || scope.trace === TraceContext.CLEAR) return;
    let next;
    try {
      next = labelsOfAttributes(span.attributes, this._mapping, routeOf(scope.rpc));
    } catch {
      return;
    }
    if (sameLabels(next, scope.attributes)) return;
    scope.attributes = next;
    scope.labels = CustomLabelsContextManager._labelsOf(scope);
    try {
      retraceSet(scope.trace, scope.labels);
    } catch (err) {
      warnSpanLabels(err);
    }
  }

  _addSpanLabels(span, scope) {
    scope.pending = false;
    let extra;
    try {
      extra = this._spanLabels(span);
      if (extra === undefined || extra === null) return;
      // Validated once here (a copy, so getters run once): activations
      // never throw into the application.
      extra = { ...extra };
      readLabels(extra).clear();
    } catch (err) {
      warnSpanLabels(err);
      return;
    }
    // The ids win over labels of the same name. A set built meanwhile (by
    // spanLabels activating the span) had the ids alone: forget it.
    scope.extra = extra;
    scope.labels = CustomLabelsContextManager._labelsOf(scope);
    forgetTraceSet(scope.trace);
  }

  // The span id of the first span of this trace in this process: the span
  // itself when it has no parent, or a parent in another process (remote:
  // SDK 2.x says so on parentSpanContext; with SDK 1.x the active span, its
  // parent, is the remote one); else the root of the span active when it is
  // first activated, if that is its parent (the case of startActiveSpan and
  // of context.with(trace.setSpan(...)) in a parent's scope); else, not
  // knowing better, its parent.
  _localRoot(span, spanId) {
    const parent = parentOf(span);
    if (parent === undefined || parent.remote) return spanId;
    const active = spanOf(this._inner.active());
    if (active !== undefined && active !== span) {
      const asc = active.spanContext();
      if (asc.spanId.toLowerCase() === parent.spanId.toLowerCase()) {
        if (asc.isRemote === true) return spanId;
        const activeScope = this._scopeOfSpan(active);
        if (activeScope?.root !== undefined) return activeScope.root;
      }
    }
    return parent.spanId.toLowerCase();
  }

  active() {
    return this._inner.active();
  }

  with(context, fn, thisArg, ...args) {
    return this._inner.with(context, fn, thisArg, ...args);
  }

  bind(context, target) {
    return this._inner.bind(context, target);
  }

  enable() {
    this._inner.enable();
    return this;
  }

  disable() {
    this._inner.disable();
    return this;
  }
}

function defaultContextManager() {
  let mod;
  try {
    mod = require('@opentelemetry/context-async-hooks');
  } catch (cause) {
    const err = new Error(
      'customlabels/otel needs @opentelemetry/context-async-hooks (npm install @opentelemetry/context-async-hooks), or a context manager in options.contextManager',
      { cause },
    );
    err.code = 'ERR_CUSTOMLABELS_MISSING_PEER';
    throw err;
  }
  return new mod.AsyncLocalStorageContextManager();
}

// customlabels/register (lib/register/otel.js): the context manager an
// OpenTelemetry SDK registers as the global one, wrapped in a
// CustomLabelsContextManager with `options` (itself if it is one already);
// a manager that cannot be wrapped is kept as it is, with one warning.
const kGlobalPatched = Symbol.for('customlabels.otel.globalContextManager');

function wrapGlobalContextManager(contextManager, options = {}) {
  if (contextManager === null || typeof contextManager !== 'object' || contextManager instanceof CustomLabelsContextManager || contextManager[kGlobalPatched] === true) {
    return contextManager;
  }
  let wrapped;
  try {
    try {
      wrapped = new CustomLabelsContextManager({ ...options, contextManager });
    } catch (err) {
      if (options.attributes === undefined || /contextManager/.test(err.message)) throw err;
      // The configured attributes are refused: the default mapping.
      warnOnce('otel-attributes', `customlabels/register: ${err.message}; the default attribute mapping applies`, 'CUSTOMLABELS_REGISTER_CONFIG');
      wrapped = new CustomLabelsContextManager({ ...options, attributes: undefined, contextManager });
    }
    Object.defineProperty(wrapped, kGlobalPatched, { value: true });
    return wrapped;
  } catch (err) {
    warnOnce('otel-global', `customlabels/register: the global context manager is kept unwrapped (${err && err.message}); spans are not published`, 'CUSTOMLABELS_SPAN_LABELS');
    return contextManager;
  }
}

module.exports = { CustomLabelsContextManager, wrapGlobalContextManager, DEFAULT_ATTRIBUTES };
