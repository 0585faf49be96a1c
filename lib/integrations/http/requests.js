'use strict';

// customlabels/register's HTTP integration (http/integration.js): every
// request of every node:http and https server, and every stream of an
// http2 server (its compat API's requests included), enters a scope with
// the request's `method`, the header labels (CUSTOMLABELS_HEADERS) and the
// process labels (CUSTOMLABELS_LABELS), framework or not, from the
// diagnostics_channel message Node.js publishes as the server receives it,
// before any 'request' or 'stream' listener runs; the request's own,
// whatever was current where Node.js parsed it. No route: routes are what
// the framework integrations add, each on top of this scope
// (kit/request-scope.js). The scope holds for the rest of that callback and
// everything it causes (the handler, its awaits, timers and I/O callbacks);
// the events of the request's body and response run in it too
// (http/events.js; an http2 stream's, kit/emitter.js). gRPC calls (an http2
// stream of content-type application/grpc) are left to the gRPC
// integration.

const { scopes } = require('../../core');
const { warnOnce } = require('../../core/warnings');
const { requestLabels } = require('../kit/request-labels');
const { runEventsIn } = require('../kit/emitter');
const { markRequestScope, isRouted } = require('../kit/request-scope');
const { followEvents, unfollowEvents } = require('./events');

const state = { on: true, builds: null, config: null };

// The labels of a request of `method` (`request`: what its headers are
// read from); `routed`: with `route` (unmatched), for a server a framework
// labels routes of (kit/request-scope.js).
function labelsOf(method, request, config, routed) {
  if (state.builds === null || state.config !== config) {
    state.builds = [requestLabels({ route: false }, config), requestLabels({ route: true }, config)];
    state.config = config;
  }
  return state.builds[routed ? 1 : 0](method, undefined, request);
}

// The request's scope, or null if its labels could not be published (one
// warning; it runs unlabelled).
function enter(method, request, config, server) {
  const routed = isRouted(server);
  try {
    return { set: scopes.enterOwn(labelsOf(method, request, config, routed)), server, routed };
  } catch (err) {
    warnOnce('http-labels', `customlabels/register: request labels not published (${err && err.message}); requests run unlabelled`, 'CUSTOMLABELS_REQUEST_LABELS');
    return null;
  }
}

// 'http.server.request.start': { request, response, socket, server }.
function enterRequest(message, { config }) {
  const { request, server } = message;
  if (!state.on || request === null || typeof request !== 'object' || typeof request.method !== 'string') return;
  const scope = enter(request.method, request, config, server);
  if (scope === null) return;
  followEvents();
  markRequestScope(request, scope);
}

// 'http2.server.stream.start': { stream, headers }. (Not a stream the
// server pushes, which Node.js announces too, from the pushing request's
// work: server-initiated streams have even ids.)
function enterStream(message, { config }) {
  const { stream, headers } = message;
  if (!state.on || stream === null || typeof stream !== 'object' || headers === null || typeof headers !== 'object' || stream.id % 2 === 0) return;
  const contentType = headers['content-type'];
  if (typeof contentType === 'string' && contentType.startsWith('application/grpc')) return;
  const method = headers[':method'];
  if (typeof method !== 'string') return;
  const scope = enter(method, { headers }, config, stream.session && stream.session.server);
  if (scope === null) return;
  // (An http2 stream's events, body chunks included, run in the scope the
  // stream is in now: http2 is not hot enough here to be worth its own
  // prototype wrapper.)
  runEventsIn(stream);
  markRequestScope(stream, scope);
}

// (Tests: what was subscribed stays, and does nothing.)
function unpatchHttp() {
  state.on = false;
  unfollowEvents();
}

module.exports = { enterRequest, enterStream, unpatchHttp };
