'use strict';

// The Fastify plugin's hook (customlabels/fastify; under register, Fastify
// 4's): from onRequest on, every request runs under `method` and `route`
// (the route's URL template, prefixes included: request.routeOptions.url,
// request.routerPath before Fastify 4.10; UNMATCHED for 404s), so every
// later hook, the body parser, the handler, onSend and onResponse run
// labelled. A request the HTTP integration opened a scope for
// (kit/request-scope.js) takes these labels on top of that scope (register:
// the route alone); one it did not (inject(), an http2 server on a line
// without its channel) in a scope of their own. A body that arrives after
// onRequest is read (and parsed) in the socket's context, and a response's
// events are emitted from it: the request stream's and the response's
// listeners run in the request's scope (kit/emitter.js).

const { AsyncResource } = require('node:async_hooks');
const { runLabelled, amendWith } = require('../kit/request-labels');
const { runEventsIn, hasBody } = require('../kit/emitter');
const { isHandWired } = require('../kit/takeover');
const { requestScopeOf } = require('../kit/request-scope');
const { routeOnly } = require('./routes');

// request.routeOptions (Fastify >= 4.10) builds a new object on every read.
function routeOf(request) {
  const options = request.routeOptions;
  if (options !== undefined) return options.url;
  return request.routerPath; // Fastify 4.0-4.9
}

// Adds the hook that labels `fastify`'s requests with `build`'s labels;
// `registerOn`: null for the plugin's hook; register's, a function saying
// whether register still labels (its hook leaves an instance with a
// registration of the app's own to that one).
function addLabelsHook(fastify, build, registerOn) {
  const atop = registerOn !== null ? routeOnly : build;
  fastify.addHook('onRequest', function labelRequest(request, reply, next) {
    if (registerOn !== null && (!registerOn() || isHandWired(fastify))) return next();
    const route = request.is404 ? undefined : routeOf(request);
    const scope = requestScopeOf(request.raw);
    if (scope !== undefined) {
      // (The request's events follow: kit/request-scope.js.)
      amendWith(scope, atop, request.method, route, request);
      return next();
    }
    return runLabelled(build, request.method, route, request, () => {
      const events = new AsyncResource('customlabels.fastify');
      if (hasBody(request.headers)) runEventsIn(request.raw, events);
      runEventsIn(reply.raw, events);
      next();
    }, next);
  });
}

module.exports = { addLabelsHook };
