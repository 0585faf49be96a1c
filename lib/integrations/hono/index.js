'use strict';

// Hono middleware (`customlabels/hono`), Hono 4 (on @hono/node-server):
//
//   const { labels } = require('customlabels/hono');
//   app.use(labels({ labels: (c) => ({ tenant: c.req.header('x-tenant') }) })); // first
//
// labels every request with `method` and `route`: the path of the route that
// handles it as registered, app.route() sub-app prefixes and basePath()
// included ('/api/users/:id'), never the raw path; UNMATCHED when no route
// matched (404s) (hono/routes.js). Every later middleware, the handler,
// app.onError and app.notFound handlers run labelled. A Hono outside the
// supported range (its version is found from its Context class at the
// first request), or one whose requests do not tell the routes they matched,
// runs unlabelled, with one warning.

const { runLabelled, requestLabels } = require('../kit/request-labels');
const { byHand } = require('../kit/integration');
const { versionOfValue } = require('../kit/versions');
const integration = require('./integration');
const { routeOf } = require('./routes');

// Marks the middleware labels() makes (register's router wrapper defers to
// it).
const kMiddleware = Symbol.for('customlabels.hono.middleware');

function labels(options = {}) {
  const build = requestLabels(options);
  const withRoute = options.route !== false;
  let supported;
  const customlabels = function customlabels(c, next) {
    if (supported === undefined) {
      const version = versionOfValue(Object.getPrototypeOf(c).constructor, 'hono');
      supported = integration.supports('hono', version) && integration.guard('context', c, { version, config: byHand(options) });
    }
    if (!supported) return next();
    return runLabelled(build, c.req.method, withRoute ? routeOf(c) : undefined, c, next);
  };
  customlabels[kMiddleware] = true;
  return customlabels;
}

module.exports = { labels };
