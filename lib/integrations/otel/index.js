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
// ids go into the thread's OTEP 4947 thread context record
// (docs/integrations/otel.md), and options.resource into the OTEP 4719
// process context.
//
// @opentelemetry/* packages are the app's own: nothing here requires
// them until a context manager is created without options.contextManager.


const integration = require('./integration');
const manager = require('./context-manager');
const { DEFAULT_ATTRIBUTES } = require('./attributes');

// The class apps make: the manager, with the integration's checks.
class CustomLabelsContextManager extends manager.CustomLabelsContextManager {
  constructor(options) {
    super(options, integration);
  }
}

module.exports = { CustomLabelsContextManager, DEFAULT_ATTRIBUTES };
