'use strict';

// customlabels/register and Koa: every request of an app of Koa's
// Application class is labelled as the app's handler (what app.callback()
// returns, which app.listen() serves) receives it: on top of the scope the
// HTTP integration opened for it (kit/request-scope.js), `route`
// (unmatched) until a router's route scope (koa/routes.js); else, a request
// handed to the handler without a server, the whole of its labels. The
// app's middleware array, and what a custom `compose` receives, are the
// app's own: nothing is added to them. The app is handed register's
// configuration; one with a labels() middleware of its own
// (kit/takeover.js) is labelled by that one, which merges it.

const { Patcher } = require('../kit/patcher');
const { requestLabels, runLabelled, amendUnmatched } = require('../kit/request-labels');
const { requestScopeOf } = require('../kit/request-scope');
const { isHandWired, handOver, markHandWired, isOwnMiddleware } = require('../kit/takeover');
const { kActive, patchRouter, routerClassOf, unpatchRoutes } = require('./routes');

const patcher = new Patcher('koa-apps');

function patchKoa(koa, context) {
  const Application = typeof koa === 'function' ? koa : koa !== null && typeof koa === 'object' && typeof koa.default === 'function' ? koa.default : undefined;
  if (Application === undefined || !context.integration.guard('koa', Application, context)) return;
  const registered = context.config;
  const build = requestLabels({}, registered);
  patcher.wrap(Application.prototype, 'callback', (callback) =>
    function callback_() {
      const handler = callback.apply(this, arguments);
      if (typeof handler !== 'function') return handler;
      const app = this;
      handOver(app, registered);
      // An app with a labels() middleware of its own (app.use(labels())):
      // its requests are that middleware's from the first.
      if (Array.isArray(app.middleware) && app.middleware.some(isOwnMiddleware)) markHandWired(app);
      return function handleRequest(req, res) {
        if (isHandWired(app) || req === null || typeof req !== 'object') return handler(req, res);
        // Route scopes for this request (koa/routes.js).
        req[kActive] = true;
        const scope = requestScopeOf(req);
        if (scope !== undefined) {
          amendUnmatched(scope);
          return handler(req, res);
        }
        return runLabelled(build, req.method, undefined, req, () => handler(req, res));
      };
    },
  );
}

// The routers of a router module of `pkg` (@koa/router or koa-router), or
// of its Router class or prototype (the app's own instrument()); whether
// they are patched.
function patchRouters(pkg, mod, context) {
  const Router = routerClassOf(mod);
  const proto = Router !== undefined ? Router.prototype : mod !== null && typeof mod === 'object' && typeof mod.routes === 'function' ? mod : undefined;
  if (proto === undefined) return false; // another file of the package
  if (!context.integration.guard(pkg, proto, context)) return false;
  patchRouter(proto, { ...context, package: pkg });
  return true;
}

function unpatchKoa() {
  patcher.unwrapAll();
  unpatchRoutes();
}

module.exports = { patchKoa, patchRouters, unpatchKoa };
