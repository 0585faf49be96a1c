'use strict';

// customlabels/register and Fastify 5, which publishes a TracingChannel
// around each route handler ('tracing:fastify.request.handler': start
// before the handler runs, end once it returned): register adds no hook to
// the app. On start, the route is entered on top of the HTTP integration's
// scope for the rest of the request: the handler, what it causes, the reply
// it sends (onSend) and, its response's events following the scope
// (kit/request-scope.js), onResponse. A request that has no such scope
// (inject()'s, an http2 server's on a line without its channel) gets all of
// its labels, and on end what was current before is current again, so the
// code that called inject() keeps its own; its response's events run in
// them (kit/emitter.js). What Fastify runs before the handler (onRequest,
// preParsing, the body parser, preValidation, preHandler) and a request no
// route matched (it publishes nothing for the 404 handler) runs under the
// HTTP integration's labels alone, without `route`: an app that wants the
// route there registers the plugin (customlabels/fastify), whose onRequest
// hook is then its own. An instance register did not reach, or whose app
// registered the plugin, is left to that. Neither subscriber ever throws
// into Fastify: a label that cannot be published is one warning.

const dc = require('node:diagnostics_channel');
const { scopes } = require('../../core');
const { buildsPerApp, amendRequest, rejectedWarning } = require('../kit/request-labels');
const { runEventsIn } = require('../kit/emitter');
const { requestScopeOf } = require('../kit/request-scope');
const { isHandWired, registeredOf } = require('../kit/takeover');
const { routes } = require('./routes');

const CHANNEL = 'tracing:fastify.request.handler';
const kRestore = Symbol('customlabels.fastify.restore');

// The labels of a request no HTTP scope holds, per app (register's
// configuration, handed to it).
const buildFor = buildsPerApp({}, registeredOf);

function onStart(message) {
  if (message === null || typeof message !== 'object') return;
  const { request, reply, route } = message;
  if (request === null || typeof request !== 'object' || route === null || typeof route !== 'object') return;
  const app = request.server;
  if (registeredOf(app) === null || isHandWired(app)) return;
  const scope = requestScopeOf(request.raw);
  if (scope !== undefined) {
    amendRequest(scope, routes.of(route.url));
    return;
  }
  try {
    message[kRestore] = scopes.enterUntil(buildFor(app)(request.method, route.url, request));
  } catch (err) {
    rejectedWarning(err);
    return;
  }
  if (reply !== null && typeof reply === 'object' && reply.raw !== undefined) runEventsIn(reply.raw);
}

function onEnd(message) {
  const restore = message !== null && typeof message === 'object' ? message[kRestore] : undefined;
  if (restore === undefined) return;
  message[kRestore] = undefined;
  restore();
}

// (A subscriber's throw would reach the app as an uncaught exception.)
const guarded = (fn) => (message) => {
  try {
    fn(message);
  } catch (err) {
    rejectedWarning(err);
  }
};

const start = guarded(onStart);
const end = guarded(onEnd);
let subscribed = false;
function followHandlers() {
  if (subscribed) return;
  subscribed = true;
  dc.channel(`${CHANNEL}:start`).subscribe(start);
  dc.channel(`${CHANNEL}:end`).subscribe(end);
}

function unfollowHandlers() {
  if (!subscribed) return;
  subscribed = false;
  dc.channel(`${CHANNEL}:start`).unsubscribe(start);
  dc.channel(`${CHANNEL}:end`).unsubscribe(end);
}

module.exports = { followHandlers, unfollowHandlers };
