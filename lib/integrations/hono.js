'use strict';

// Hono middleware (`customlabels/hono`), Hono 4 (on @hono/node-server):
//
//   const { labels } = require('customlabels/hono');
//   app.use(labels({ labels: (c) => ({ tenant: c.req.header('x-tenant') }) })); // first
//
// labels every request with `method` and `route`: the path of the route that
// handles it as registered, app.route() sub-app prefixes and basePath()
// included ('/api/users/:id'), never the raw path; UNMATCHED when no route
// matched (404s). Every later middleware, the handler, app.onError and
// app.notFound handlers run labelled.
//
// Hono matches the request before any middleware runs, so the route is known
// when this middleware does: the first matched route that is not middleware.
// Hono does not mark middleware, so this uses what app.use() registers: a
// method of 'ALL' and a path ending in '*' ('/*', '/api/*'); an app.all() or
// verb route is a route (an app.all('/files/*') route shows UNMATCHED).

const { requestLabels, runLabelled } = require('./request-labels');
const { warnOnce } = require('../core/warnings');

function isMiddleware(route) {
  return route.method === 'ALL' && typeof route.path === 'string' && route.path.endsWith('*');
}

// The matched route's template, or undefined when no route matched.
function routeOf(c) {
  const routes = c.req.matchedRoutes;
  if (!Array.isArray(routes)) {
    warnOnce('hono-unsupported', 'customlabels/hono: this Hono has no c.req.matchedRoutes; requests are labelled route=(unmatched)', 'CUSTOMLABELS_UNSUPPORTED_FRAMEWORK');
    return undefined;
  }
  for (let i = 0; i < routes.length; i++) {
    if (!isMiddleware(routes[i])) return routes[i].path;
  }
  return undefined;
}

// customlabels/register wraps what Hono's routers hold (labelRouters);
// the middleware of the app's own is known by this.
const kMiddleware = Symbol.for('customlabels.hono.middleware');
const kWrapped = Symbol.for('customlabels.hono.wrapped');
const kSeen = Symbol.for('customlabels.hono.seen');

function labels(options = {}) {
  const build = requestLabels(options);
  const withRoute = options.route !== false;
  const customlabels = function customlabels(c, next) {
    return runLabelled(build, c.req.method, withRoute ? routeOf(c) : undefined, c, next);
  };
  customlabels[kMiddleware] = true;
  return customlabels;
}

// customlabels/register: Hono keeps its dispatch private and its methods on
// each app, so what every app shares is its router class. Each handler a
// router of `Router` (a class with add(method, path, [handler, route]): the
// Smart, RegExp, Trie, Pattern and Linear routers) is given runs wrapped:
// the first handler of a request (the first matched, which the app's first
// middleware is) runs it under labels(options), as that middleware would;
// where the first is the app's own labels() middleware, that one does.
// Requests no handler matches at all (an app without middleware) run
// unlabelled.
function labelRouters(Router, options = {}) {
  const proto = Router && Router.prototype;
  if (proto === undefined || proto === null || typeof proto.add !== 'function') return;
  const patched = Symbol.for('customlabels.hono.labelsRouter');
  if (Object.prototype.hasOwnProperty.call(proto, patched)) return;
  Object.defineProperty(proto, patched, { value: true });
  const build = requestLabels(options);
  const wrap = (fn) => {
    if (fn[kWrapped] === true) return fn;
    const own = fn[kMiddleware] === true;
    const wrapped = function (c, next) {
      if (c === null || typeof c !== 'object' || c[kSeen] === true) return fn(c, next);
      c[kSeen] = true;
      if (own) return fn(c, next);
      return runLabelled(build, c.req.method, routeOf(c), c, () => fn(c, next));
    };
    wrapped[kWrapped] = true;
    return wrapped;
  };
  const add = proto.add;
  proto.add = function add_(method, path, handler) {
    if (Array.isArray(handler) && typeof handler[0] === 'function') handler = [wrap(handler[0]), ...handler.slice(1)];
    return add.call(this, method, path, handler);
  };
}

module.exports = { labels, labelRouters };
