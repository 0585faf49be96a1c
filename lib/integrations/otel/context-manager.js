'use strict';

// The context manager of customlabels/otel: it wraps another (by default
// AsyncLocalStorageContextManager from @opentelemetry/context-async-hooks)
// and, whenever that one activates a context (with(), and so bind(), and
// attach()), runs the activation under the current labels plus the span's
// ids, its attributes' labels (otel/attributes.js), kept current as they
// change (otel/span-watch.js, otel/rpc-route.js), and options.spanLabels'.

const { traceScopes } = require('../../core');
const errors = require('../../core/errors');
const { readLabels } = require('../../core/labels');
const { attributeMapping, labelsOfAttributes, sameLabels } = require('./attributes');
const { observeRoute, routeOf } = require('./rpc-route');
const { watchSpanClass, watch } = require('./span-watch');
const { ID_LABELS, DEFAULT_IDS, traceOf, warnSpanLabels, SpanScope, spanOf, parentOf } = require('./spans');


const { withTraceContext, enterTraceContext, retraceSet, forgetTraceSet, setResource, TraceContext } = traceScopes;

// The version of the OpenTelemetry API registered in this process (the
// one whose registry register observes), or null: what a guard's warning
// names.
function apiVersion(integration) {
  const [reach] = integration.reach;
  return reach.versionOf(globalThis[reach.key] ?? null);
}

function resourceAttributes(resource) {
  if (resource === undefined) return undefined;
  if (resource === null || typeof resource !== 'object') throw errors.invalidOption('resource', 'a Resource or an object', resource);
  const attributes = 'attributes' in resource && typeof resource.attributes === 'object' ? resource.attributes : resource;
  return attributes ?? {};
}

// (`integration`: customlabels/otel's descriptor, whose checks of what a
// span class and @opentelemetry/core keep run before they are relied on;
// given by otel/index.js and by register.)
class CustomLabelsContextManager {
  constructor(options = {}, integration = undefined) {
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

    this._guardSpan = integration === undefined ? () => true : (span) => integration.guard('span', span, { version: apiVersion(integration) });
    this._guardRpc = integration === undefined ? () => true : (core) => integration.guard('rpc metadata', core, { version: apiVersion(integration) });
    this._inner = inner;
    this._ids = { trace: ids.includes('trace_id'), span: ids.includes('span_id'), root: ids.includes('local_root_span_id') };
    this._spanLabels = spanLabels;
    this._mapping = mapping;
    this._mapped = new Set(mapping.map(([attribute]) => attribute));
    if (mapping.length !== 0) watch(this);
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
    if (this._mapping.length !== 0 && watchSpanClass(span, this._guardSpan)) {
      if (this._mapped.has('http.route')) scope.rpc = observeRoute(context, span, () => this._attributesChanged(span), this._guardRpc);
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

module.exports = { CustomLabelsContextManager };
