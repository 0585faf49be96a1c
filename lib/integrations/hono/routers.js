'use strict';

// customlabels/register and Hono (hono/integration.js). Hono keeps its
// dispatch private and its methods on each app, so what every app shares is
// its router class. Each handler a router
// (a class with add(method, path, [handler, route]): the Smart, RegExp,
// Trie, Pattern and Linear routers) is given runs wrapped: the first handler
// of a request (the first matched, which the app's first middleware is) runs
// it under the request's labels, as the labels() middleware would (on top of
// the HTTP integration's scope where it opened one: the route alone); where
// the first is the app's own labels() middleware, that one does. Requests no
// handler matches at all (an app without middleware) run under the HTTP
// integration's labels alone.

const { Patcher } = require('../kit/patcher');
const { requestLabels, runLabelled, amendRequest, UNMATCHED } = require('../kit/request-labels');
const { requestScopeOf } = require('../kit/request-scope');
const { RouteLabels } = require('../kit/route-labels');
const { routeOf } = require('./routes');

const routes = new RouteLabels();
// Node.js's request of a Hono request on @hono/node-server (c.env.incoming),
// or undefined.
const incomingOf = (c) => (c.env !== null && typeof c.env === 'object' ? c.env.incoming : undefined);

const patcher = new Patcher('hono');
const kMiddleware = Symbol.for('customlabels.hono.middleware');
const kWrapped = Symbol.for('customlabels.hono.wrapped');
const kSeen = Symbol.for('customlabels.hono.seen');

function labelRouters(Router, context) {
  const proto = Router.prototype;
  const build = requestLabels({}, context.config);
  let supported; // decided at the first request
  const wrap = (fn) => {
    if (fn[kWrapped] === true) return fn;
    const own = fn[kMiddleware] === true;
    const wrapped = function (c, next) {
      if (c === null || typeof c !== 'object' || c[kSeen] === true) return fn(c, next);
      c[kSeen] = true;
      if (own) return fn(c, next);
      if (supported === undefined) supported = context.integration.guard('context', c, context);
      if (!supported) return fn(c, next);
      const scope = requestScopeOf(incomingOf(c));
      if (scope !== undefined) {
        // On top of the HTTP integration's scope: the route alone.
        amendRequest(scope, routes.of(routeOf(c) ?? UNMATCHED));
        return fn(c, next);
      }
      return runLabelled(build, c.req.method, routeOf(c), c, () => fn(c, next));
    };
    wrapped[kWrapped] = true;
    return wrapped;
  };
  if (!context.integration.guard('router', proto, context)) return;
  patcher.wrap(proto, 'add', (add) =>
    function add_(method, path, handler) {
      if (Array.isArray(handler) && typeof handler[0] === 'function') handler = [wrap(handler[0]), ...handler.slice(1)];
      return add.call(this, method, path, handler);
    },
  );
}

// The router classes a router module exports (CommonJS exports or an ESM
// namespace): classes with add() or match() on their prototype (match() may
// be an instance field: RegExpRouter 4.x assigns it in its constructor; a
// router with match() and no add() is one the guard warns of).
function patchRouters(mod, context) {
  if (mod === null || typeof mod !== 'object') return;
  for (const value of Object.values(mod)) {
    if (typeof value === 'function' && value.prototype !== undefined && value.prototype !== null && (typeof value.prototype.add === 'function' || typeof value.prototype.match === 'function')) labelRouters(value, context);
  }
}

const unpatchRouters = () => patcher.unwrapAll();

module.exports = { patchRouters, unpatchRouters };
