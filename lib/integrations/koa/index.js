'use strict';

// Koa middleware (`customlabels/koa`), Koa 2 and 3 with @koa/router 12+ or
// koa-router:
//
//   const { labels } = require('customlabels/koa'); // before building routers
//   app.use(labels({ labels: (ctx) => ({ tenant: ctx.get('x-tenant') }) }));
//
// The middleware labels the request with `method` (and `route` UNMATCHED).
// Once a router matched a route, that route's middleware, handler, and
// everything they cause run with `route` set to the matched template, prefixes
// and nested routers included ('/api/users/:id'; ctx._matchedRoute), never the
// raw path; a RegExp path shows as String(re). Code upstream of the router
// (before or after `await next()`) and requests no route matches (404, 405)
// show UNMATCHED. The route scopes come from the routers' register()
// (koa/routes.js), patched for the routers that resolve from here when this
// module loads, or by instrument(Router) for another copy, before routes are
// defined.

const errors = require('../../core/errors');
const { buildsPerApp, runLabelled } = require('../kit/request-labels');
const { markHandWired, ownMiddleware, registeredOf } = require('../kit/takeover');
const { byHand } = require('../kit/integration');
const { versionOfExports, versionOfFile, warnUnsupported } = require('../kit/versions');
const integration = require('./integration');
const { routerClassOf, kActive } = require('./routes');

const ROUTERS = ['@koa/router', 'koa-router'];
const reachOf = (pkg) => integration.reach.find((r) => r.package === pkg);

// (Under customlabels/register, the app's process and header labels join
// these: register handed the app its configuration.)
function labels(options = {}) {
  const buildFor = buildsPerApp(options, registeredOf);
  const withRoute = options.route !== false;
  return ownMiddleware(function customlabels(ctx, next) {
    markHandWired(ctx.app);
    if (withRoute) ctx[kActive] = true;
    return runLabelled(buildFor(ctx.app), ctx.method, undefined, ctx, next);
  });
}

// Patches a router class (require('@koa/router') or require('koa-router'))
// or its prototype; idempotent. `pkg`, `version`: what it is (@koa/router
// of an unknown version where it is not known).
const instrumentRouter = (Router, pkg, version, file) => integration.apply(reachOf(pkg), Router, { version, file, config: byHand() }) === true;

// A router class (or its prototype): one with routes(), the router's public
// API; anything else is a TypeError (ERR_CUSTOMLABELS_INVALID_ARG_TYPE).
function instrument(Router) {
  const proto = typeof Router === 'function' ? Router.prototype : Router;
  if (proto === null || typeof proto !== 'object' || typeof proto.routes !== 'function') {
    throw errors.invalidArgument('instrument()', "a Koa router class (require('@koa/router') or require('koa-router'))", Router);
  }
  for (const pkg of ROUTERS) {
    const version = versionOfExports(Router, pkg);
    if (version !== null) return instrumentRouter(Router, pkg, version);
  }
  return instrumentRouter(Router, '@koa/router', null);
}

// The routers that resolve from here (a flat node_modules), if any.
function instrumentInstalled() {
  for (const pkg of ROUTERS) {
    let file;
    let mod;
    try {
      file = require.resolve(pkg);
      mod = require(pkg);
    } catch {
      continue;
    }
    const version = versionOfFile(file, pkg);
    if (routerClassOf(mod) !== undefined) instrumentRouter(mod, pkg, version, file);
    else if (integration.supports(pkg, version)) warnUnsupported(integration.name, pkg, version, integration.packages[pkg], 'its Router class is missing');
  }
}

instrumentInstalled();

module.exports = { labels, instrument };
