'use strict';

// Which route a Hono request matched (customlabels/hono): Hono matches a
// request before any middleware runs, so the route is known when the
// labels middleware does: the first matched route that is not middleware
// (c.req.matchedRoutes). Hono does not mark middleware, so this uses what
// app.use() registers: a method of 'ALL' and a path ending in '*' ('/*',
// '/api/*'); an app.all() or verb route is a route (an app.all('/files/*')
// route shows UNMATCHED).

function isMiddleware(route) {
  return route.method === 'ALL' && typeof route.path === 'string' && route.path.endsWith('*');
}

// The matched route's template, or undefined when no route matched.
function routeOf(c) {
  const routes = c.req.matchedRoutes;
  for (let i = 0; i < routes.length; i++) {
    if (!isMiddleware(routes[i])) return routes[i].path;
  }
  return undefined;
}

module.exports = { routeOf };
