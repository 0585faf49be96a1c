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
const { warnOnce } = require('../warnings');

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

function labels(options = {}) {
  const build = requestLabels(options);
  const withRoute = options.route !== false;
  return function customlabels(c, next) {
    return runLabelled(build, c.req.method, withRoute ? routeOf(c) : undefined, c, next);
  };
}

module.exports = { labels };
