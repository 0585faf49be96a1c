'use strict';

// The patch of an express module (express/integration.js): the Router/Layer
// patches (express/router.js), and, under customlabels/register, every
// app's handle() labels each request from app.handle on, unless the app has
// a labels() middleware of its own, which then labels it, merging
// register's configuration (handed to the app at its first request). A
// request the HTTP integration opened a scope for (kit/request-scope.js)
// gets `route` (unmatched) on top of that scope, and its routes' scopes
// after; one it did not (an app handed a request without a server) gets
// the whole of the request's labels here. A mounted sub-app's requests are
// labelled by the app they came through.

const { Patcher } = require('../kit/patcher');
const { requestLabels, amendUnmatched } = require('../kit/request-labels');
const { requestScopeOf } = require('../kit/request-scope');
const { isHandWired, handOver, markHandWired, isOwnMiddleware } = require('../kit/takeover');
const { prototypesOf, patchPrototypes, unpatchRouter, isLabelled, tracking, stateOf } = require('./router');
const { labelRequest } = require('./requests');

const patcher = new Patcher('express-apps');

// The Router and Layer prototypes `protos` ({ routerProto, layerProto }:
// an express module's, or those an app's router uses), where their
// internals are there; whether they are patched.
function patchRouters(protos, context) {
  if (!context.integration.guard('router', protos, context)) return false;
  patchPrototypes(protos.routerProto, protos.layerProto);
  return true;
}

// The router of an app: Express 4's app._router (its app.router, on the
// application prototype, is a getter that throws), Express 5's app.router
// (defined on each app).
function routerOf(app) {
  if (app._router !== undefined) return app._router;
  if (Object.getOwnPropertyDescriptor(app, 'router') === undefined) return undefined;
  try {
    return app.router;
  } catch {
    return undefined;
  }
}

// A layer of a router's stack mounted at its root (router@2's `slash`,
// Express 4's `regexp.fast_slash`): it sees every request that reaches it.
const atRoot = (layer) => layer.slash === true || (layer.regexp !== null && typeof layer.regexp === 'object' && layer.regexp.fast_slash === true);

// An app with a labels() middleware mounted at the root of its own stack
// (app.use(labels())), found at its first request: its requests are that
// middleware's from the first. One mounted on a path or a route leaves the
// app's other requests to register.
function markIfWired(app) {
  const router = routerOf(app);
  if (router === undefined || router === null || !Array.isArray(router.stack)) return;
  if (router.stack.some((layer) => layer !== null && typeof layer === 'object' && isOwnMiddleware(layer.handle) && atRoot(layer))) markHandWired(app);
}

function patchExpress(express, context) {
  if (typeof express !== 'function' || typeof express.Router !== 'function' || express.application === undefined) return false;
  const { integration, config } = context;
  // Every check before any change: what a warning says is left unpatched
  // is.
  if (config.byHand !== true && !integration.guard('express', express, context)) return false;
  if (!patchRouters(prototypesOf(express), context)) return false;
  if (config.byHand === true) return true;
  const build = requestLabels({}, config);
  tracking.on = true;
  patcher.wrap(express.application, 'handle', (handle) =>
    function handle_(req, res, callback) {
      if (handOver(this, config)) markIfWired(this);
      if (isHandWired(this) || isLabelled(req)) return handle.call(this, req, res, callback);
      const scope = requestScopeOf(req);
      if (scope === undefined) return labelRequest(build, true, req, () => handle.call(this, req, res, callback));
      stateOf(req).active = true; // (active: labelled too, router.js isLabelled)
      amendUnmatched(scope);
      return handle.call(this, req, res, callback);
    },
  );
  return true;
}

function unpatchExpress() {
  patcher.unwrapAll();
  unpatchRouter();
}

module.exports = { patchExpress, patchRouters, unpatchExpress, routerOf };
