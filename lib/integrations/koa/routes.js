'use strict';

// Route scopes for Koa routers (customlabels/koa): @koa/router 12+ and
// koa-router keep no hook to enter a scope when a route matches, so
// Router#register is patched, once per Router prototype (any copies): each
// route layer it creates (one per path and verb) gets one entering
// middleware at the head of its stack, which runs right after the router set
// ctx._matchedRoute to that layer's template and runs the rest of the layer
// (router.param callbacks included) under it. Routes registered before the
// patch run without `route`.

const { withLabels } = require('../../index');
const { Patcher } = require('../kit/patcher');
const { RouteLabels } = require('../kit/route-labels');
const { requestScopeOf, follow } = require('../kit/request-scope');

const patcher = new Patcher('koa');
const routes = new RouteLabels();
// Set on the requests something labels (a labels() middleware on the
// context, register on Node.js's request, ctx.req): only those enter route
// scopes.
const kActive = Symbol.for('customlabels.koa.active');
// The router inserts a param middleware before the first stack entry without
// a `param` property, or before one whose param comes later in the path: a
// symbol is truthy and never found among the path's names, so param
// middleware goes after the entering middleware, and runs in the route scope.
const kEnterParam = Symbol('customlabels.koa.enter');

function template(path) {
  if (typeof path === 'string') return path === '' ? '/' : path;
  return String(path); // a RegExp: its source
}

const kEnterer = Symbol('customlabels.koa.enterer');

// The middleware that enters a route of a router of `context.package`:
// its first request checks that the router tells the route it matched
// (ctx._matchedRoute); where it does not, the route's requests run on
// unlabelled by route (one warning).
function entererFor(context) {
  let known; // whether ctx._matchedRoute is there
  const enterRoute = function enterRoute(ctx, next) {
    if (ctx[kActive] !== true && (ctx.req === undefined || ctx.req === null || ctx.req[kActive] !== true)) return next();
    known ??= context.integration.guard(`${context.package} context`, ctx, context);
    if (!known) return next();
    const path = ctx._matchedRoute;
    return withLabels(routes.of(typeof path === 'string' && path !== '' ? path : template(path)), () => {
      // The request's body events (kit/request-scope.js) in the route too.
      const scope = requestScopeOf(ctx.req);
      if (scope !== undefined) follow(scope);
      return next();
    });
  };
  enterRoute.param = kEnterParam;
  enterRoute[kEnterer] = true;
  return enterRoute;
}

// Adds the entering middleware to a route layer (one with verbs) once.
function instrumentLayer(layer, enterRoute) {
  // register() returns the router itself for an array of paths (each path
  // went through register() on its own).
  if (layer === null || typeof layer !== 'object' || !Array.isArray(layer.paramNames)) return;
  if (!Array.isArray(layer.stack) || !Array.isArray(layer.methods)) return;
  if (layer.methods.length === 0 || (typeof layer.stack[0] === 'function' && layer.stack[0][kEnterer] === true)) return;
  layer.stack.unshift(enterRoute);
}

// The Router class of a router module (require('@koa/router') or
// require('koa-router'); @koa/router 15.0 exports { Router, default }): a
// class with routes(), the router's public API; undefined if none.
function routerClassOf(mod) {
  if (mod === null || (typeof mod !== 'object' && typeof mod !== 'function')) return undefined;
  return [mod, mod.Router, mod.default].find((r) => typeof r === 'function' && r.prototype !== undefined && typeof r.prototype.routes === 'function');
}

// Patches a Router prototype of `context.package` ({ integration, version,
// config, package }); false if it was patched already.
function patchRouter(proto, context) {
  const enterRoute = entererFor(context);
  return patcher.wrap(proto, 'register', (register) =>
    function register_(...args) {
      const layer = register.apply(this, args);
      instrumentLayer(layer, enterRoute);
      return layer;
    },
  );
}

const unpatchRoutes = () => patcher.unwrapAll();

module.exports = { patchRouter, routerClassOf, unpatchRoutes, kActive };
