'use strict';

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

module.exports = { observeRoute, routeOf };
