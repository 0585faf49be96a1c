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
// show UNMATCHED.
//
// Koa keeps no hook to enter a scope when a route matches, so this module
// patches Router#register, once per Router prototype (@koa/router and
// koa-router, any copies): each route layer it creates (one per path and
// verb) gets one entering middleware at the head of its stack, which runs
// right after the router set ctx._matchedRoute to that layer's template and
// runs the rest of the layer (router.param callbacks included) under it.
// Routes registered before the patch run without `route`: require this module
// before defining routes, or call instrument(Router) early for another copy.

const { withLabels } = require('../index');
const { requestLabels, runLabelled } = require('./request-labels');

// Symbol.for: copies of this package cooperate instead of patching twice.
const kPatched = Symbol.for('customlabels.koa.patched');
const kActive = Symbol.for('customlabels.koa.active');
// The router inserts a param middleware before the first stack entry without
// a `param` property, or before one whose param comes later in the path: a
// symbol is truthy and never found among the path's names, so param
// middleware goes after the entering middleware, and runs in the route scope.
const kEnterParam = Symbol('customlabels.koa.enter');
// Templates come from the app's routes; the bound only guards against an app
// that builds routes at run time.
const MAX_CACHED = 256;
const routeLabelsCache = new Map();

function template(path) {
  if (typeof path === 'string') return path === '' ? '/' : path;
  if (path instanceof RegExp) return String(path);
  return String(path);
}

// One frozen { route } per template: withLabels finds its set by identity.
function routeLabels(path) {
  let labels = routeLabelsCache.get(path);
  if (labels === undefined) {
    labels = Object.freeze({ route: template(path) });
    if (routeLabelsCache.size < MAX_CACHED) routeLabelsCache.set(path, labels);
  }
  return labels;
}

function enterRoute(ctx, next) {
  if (ctx[kActive] !== true) return next();
  return withLabels(routeLabels(ctx._matchedRoute), next);
}
enterRoute.param = kEnterParam;

// Adds the entering middleware to a route layer (one with verbs) once.
function instrumentLayer(layer) {
  // register() returns the router itself for an array of paths (each path
  // went through register() on its own).
  if (layer === null || typeof layer !== 'object' || !Array.isArray(layer.paramNames)) return;
  if (!Array.isArray(layer.stack) || !Array.isArray(layer.methods)) return;
  if (layer.methods.length === 0 || layer.stack[0] === enterRoute) return;
  layer.stack.unshift(enterRoute);
}

// Patches a router class (require('@koa/router') or require('koa-router'))
// or its prototype; idempotent.
function instrument(Router) {
  const proto = typeof Router === 'function' ? Router.prototype : Router;
  if (proto === null || typeof proto !== 'object' || typeof proto.register !== 'function') {
    const err = new TypeError('Expected a Koa router class (require(\'@koa/router\') or require(\'koa-router\')) for instrument()');
    err.code = 'ERR_CUSTOMLABELS_INVALID_ARG_TYPE';
    throw err;
  }
  if (Object.prototype.hasOwnProperty.call(proto, kPatched)) return;
  Object.defineProperty(proto, kPatched, { value: true });
  const register = proto.register;
  proto.register = function register_(...args) {
    const layer = register.apply(this, args);
    instrumentLayer(layer);
    return layer;
  };
}

// The routers that resolve from here (peer dependencies), if any.
function instrumentInstalled() {
  for (const name of ['@koa/router', 'koa-router']) {
    let Router;
    try {
      Router = require(name);
    } catch {
      continue;
    }
    const candidate = Router.Router ?? Router.default ?? Router;
    if (typeof candidate === 'function' && typeof candidate.prototype.register === 'function') {
      instrument(candidate);
    } else {
      // A future router without register(): routes run without `route`,
      // never a failed require.
      process.emitWarning(`customlabels/koa: ${name} has no Router#register; routes are labelled without their template`, {
        code: 'CUSTOMLABELS_UNSUPPORTED_FRAMEWORK',
      });
    }
  }
}

// customlabels/register: the Koa application prototypes it made label
// every request, and the apps with a labels() middleware of their own.
const kLabelsApps = Symbol.for('customlabels.koa.labelsApps');
const kHandWired = Symbol.for('customlabels.koa.handWired');
const kAdded = Symbol('customlabels.koa.added');

function labels(options = {}) {
  const build = requestLabels(options);
  const withRoute = options.route !== false;
  return function customlabels(ctx, next) {
    if (ctx.app !== undefined && ctx.app !== null) ctx.app[kHandWired] = true;
    if (withRoute) ctx[kActive] = true;
    return runLabelled(build, ctx.method, undefined, ctx, next);
  };
}

// customlabels/register: every app of Koa's `Application` class runs
// labels(options) first, added when the app makes its request handler
// (app.callback(), which app.listen() calls), unless the app has a
// labels() middleware of its own, whose options then apply.
function labelApps(Application, options = {}) {
  const proto = Application.prototype;
  if (Object.prototype.hasOwnProperty.call(proto, kLabelsApps) || typeof proto.callback !== 'function') return;
  Object.defineProperty(proto, kLabelsApps, { value: true });
  const build = requestLabels(options);
  function registered(ctx, next) {
    if (ctx.app[kHandWired] === true) return next();
    ctx[kActive] = true;
    return runLabelled(build, ctx.method, undefined, ctx, next);
  }
  const callback = proto.callback;
  proto.callback = function callback_() {
    if (this[kAdded] !== true && Array.isArray(this.middleware)) {
      this[kAdded] = true;
      this.middleware.unshift(registered);
    }
    return callback.call(this);
  };
}

// Not under customlabels/register, which instruments the routers the app
// loads itself.
if (globalThis[Symbol.for('customlabels.register.config')] === undefined) instrumentInstalled();

module.exports = { labels, instrument, labelApps };
