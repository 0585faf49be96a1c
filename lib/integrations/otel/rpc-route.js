'use strict';

// The RPC metadata OpenTelemetry's HTTP server instrumentation puts in the
// context of its server span (@opentelemetry/core's RPC_METADATA_KEY, a
// Symbol.for): the framework instrumentations (Express, Fastify, Koa, hapi)
// set its `route` once routing ran, and the HTTP instrumentation copies it
// into the span's http.route only when the response ends. So a route set
// there is the server span's http.route from then on: the property is
// observed (an accessor in its place) for the span it belongs to.
const path = require('node:path');

const RPC_METADATA = Symbol.for('OpenTelemetry SDK Context Key RPC_METADATA');

// Whether every @opentelemetry/core loaded by CommonJS keeps its RPC
// metadata under that key (`guard(core)`: the integration's check, which
// warns once if not); asked at the first server span.
let keyKnown;
function keyKnownBy(guard) {
  if (keyKnown !== undefined) return keyKnown;
  keyKnown = true;
  const marker = `${path.sep}@opentelemetry${path.sep}core${path.sep}`;
  for (const [file, m] of Object.entries(require.cache)) {
    if (m === undefined || !file.includes(marker) || m.exports === null || typeof m.exports !== 'object' || typeof m.exports.setRPCMetadata !== 'function') continue;
    if (!guard(m.exports)) keyKnown = false;
  }
  return keyKnown;
}

// Whether @opentelemetry/core's setRPCMetadata (`core`'s) keeps it under
// RPC_METADATA: the key it hands a context.
function keepsUnderKey(core) {
  let key;
  core.setRPCMetadata({ setValue: (k) => (key = k) }, {});
  return key === RPC_METADATA;
}

function observeRoute(context, span, changed, guard) {
  if (!keyKnownBy(guard)) return undefined;
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

module.exports = { observeRoute, routeOf, keepsUnderKey, forgetKey: () => (keyKnown = undefined) };
