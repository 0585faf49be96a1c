'use strict';

// Route templates for Express 4.6+ and 5 (customlabels/express). Express
// keeps no mount templates, so this module patches, once per Router and
// Layer prototype (both Express lines, any number of copies):
// - Router#use, to remember the path each new layer was mounted at (router
//   2.3+ keeps it as layer.rawPath itself);
// - Layer#handle_request (4) / Layer#handleRequest (5), to track the mounts a
//   request is in and to enter the route's scope when a route layer runs;
// - Router#process_params (4) / Router#param (5), so router.param callbacks
//   of a matched route run in its scope too.
// Prototype methods are patched, never layer.handle, and the wrappers carry
// no shimmer markers, so OpenTelemetry's Express instrumentation (which
// wraps layer.handle and Router#use) stacks with this one either way round.
// Mounts made before the patch (a router built before this module was
// required, on Express 4 or router < 2.3) show as '*'.
//
// A request is labelled `route` only where a labels middleware (the app's or
// register's) marked it active (its state, below). A route template is the
// paths of the app.use()/router.use() mounts the request went through plus
// the route's own path ('/api/users/:id'), never the raw path; a RegExp
// path shows as its source (String(re)), an array path as its elements
// joined with ','.

const { withLabels } = require('../../index');
const { Patcher } = require('../kit/patcher');
const { requestScopeOf, follow } = require('../kit/request-scope');
const { RouteLabels } = require('../kit/route-labels');
const { memoOn } = require('../kit/cache');

const patcher = new Patcher('express');
const routes = new RouteLabels();
const kMountPath = Symbol.for('customlabels.express.mountPath');
// A request's state, one object added once per request (adding properties
// to `req` one by one cost more, on Node 20 most): { active: its routes
// enter their scopes (a labels middleware with routes runs for it),
// labelled: a labels middleware or register labelled it (a sub-app's
// handle() then adds nothing; an older copy's state lacks it, and active
// stands for it), prefix: the mount prefixes it went through, events: its
// body's events (kit/emitter.js), or null }.
const kState = Symbol.for('customlabels.express.state.v3');
const kTemplates = Symbol('customlabels.express.templates');
const kMount = Symbol('customlabels.express.mount');
const kJoined = Symbol('customlabels.express.joined');
const UNKNOWN_MOUNT = '*';

// Mount prefixes are tracked for every request once any labels middleware
// exists (tracking.on), so a labels() mounted below the app still sees the
// full template.
const tracking = { on: false };

function segment(path) {
  if (typeof path === 'string') return path;
  if (path instanceof RegExp) return String(path);
  if (Array.isArray(path)) return path.map(segment).join(',');
  return UNKNOWN_MOUNT;
}

// '/api' + '/users/:id'; '/' and '' add nothing.
function join(prefix, path) {
  const s = segment(path);
  if (s === '/' || s === '') return prefix;
  if (prefix === '') return s.startsWith('/') ? s : `/${s}`;
  return prefix.endsWith('/') && s.startsWith('/') ? prefix + s.slice(1) : prefix + (s.startsWith('/') ? s : `/${s}`);
}

function stateOf(req) {
  let state = req[kState];
  if (state === undefined) {
    state = { active: false, labelled: false, prefix: '', events: null };
    req[kState] = state;
  }
  return state;
}

const isActive = (req) => req[kState] !== undefined && req[kState].active;
const isLabelled = (req) => req[kState] !== undefined && (req[kState].labelled === true || req[kState].active);

// The frozen { route } of `route` reached through the request's mounts: per
// route and mount prefix, the template is joined once.
function routeLabels(req, route) {
  const state = req[kState];
  const prefix = state === undefined ? '' : state.prefix;
  return memoOn(route, kTemplates, prefix, () => {
    const template = join(prefix, route.path);
    return routes.of(template === '' ? '/' : template);
  });
}

// Runs fn in the scope of `route` for `req`; the request's events (its
// body, read by the route's own parser) from then on too.
function inRoute(req, route, fn) {
  return withLabels(routeLabels(req, route), () => {
    const scope = requestScopeOf(req);
    if (scope !== undefined) {
      follow(scope);
    } else {
      const state = req[kState];
      if (state !== undefined && state.events !== null) state.events.capture();
    }
    return fn();
  });
}

function mountPathOf(layer) {
  if (layer[kMountPath] !== undefined) return layer[kMountPath];
  if (layer.rawPath !== undefined) return layer.rawPath; // router >= 2.3
  return undefined;
}

// What a layer that is not a route's adds to the mount prefix: { seg }, or
// NO_MOUNT (seg null) for one that adds nothing (mounted at '/', or a layer
// of a route's own stack, which has a method, maybe undefined for
// route.all), worked out at its first request and kept on the layer, so
// that the layers a request passes cost one property read each.
const NO_MOUNT = Object.freeze({ seg: null });
function mountOf(layer) {
  let mount = layer[kMount];
  if (mount === undefined) {
    let seg = null;
    if (!Object.prototype.hasOwnProperty.call(layer, 'method')) {
      const path = mountPathOf(layer);
      seg = path === undefined ? UNKNOWN_MOUNT : segment(path);
    }
    mount = seg === null || seg === '/' || seg === '' ? NO_MOUNT : { seg };
    if (Object.isExtensible(layer)) Object.defineProperty(layer, kMount, { value: mount });
  }
  return mount;
}

// The same rule Router#use applies to tell a path from a handler.
function usePath(args) {
  const first = args[0];
  if (typeof first === 'function') return '/';
  let arg = first;
  while (Array.isArray(arg) && arg.length !== 0) arg = arg[0];
  return typeof arg === 'function' ? '/' : first;
}

function patchRouter(proto) {
  patcher.wrap(proto, 'use', (use) =>
    function use_(...args) {
      const before = this.stack.length;
      const result = use.apply(this, args);
      const path = usePath(args);
      for (let i = before; i < this.stack.length; i++) this.stack[i][kMountPath] = path;
      return result;
    },
  );
  if (typeof proto.process_params === 'function') {
    // Express 4: runs after a layer matched, before its param callbacks and
    // handlers.
    patcher.wrap(proto, 'process_params', (processParams) =>
      function process_params(layer, called, req, res, done) {
        if (layer.route === undefined || !isActive(req)) return processParams.call(this, layer, called, req, res, done);
        return inRoute(req, layer.route, () => processParams.call(this, layer, called, req, res, done));
      },
    );
  } else {
    // Express 5: router.param callbacks run right after Router#handle set
    // req.route to the matched route (it is stale only for a param of a
    // mount path, whose callbacks then show that earlier route).
    patcher.wrap(proto, 'param', (param) =>
      function param_(name, fn) {
        if (typeof fn !== 'function') return param.call(this, name, fn);
        return param.call(this, name, function paramCallback(req, res, next, value, key) {
          if (!isActive(req) || req.route === undefined) return fn.call(this, req, res, next, value, key);
          return withLabels(routeLabels(req, req.route), () => fn.call(this, req, res, next, value, key));
        });
      },
    );
  }
}

function patchLayer(proto) {
  const name = typeof proto.handleRequest === 'function' ? 'handleRequest' : 'handle_request';
  const enterRoute = name === 'handleRequest'; // Express 4 enters it in process_params
  patcher.wrap(proto, name, (handle) =>
    function handleRequest(req, res, next) {
      if (!tracking.on) return handle.call(this, req, res, next);
      if (this.route !== undefined) {
        if (!enterRoute || !isActive(req)) return handle.call(this, req, res, next);
        return inRoute(req, this.route, () => handle.call(this, req, res, next));
      }
      const mount = mountOf(this);
      if (mount.seg === null) return handle.call(this, req, res, next);
      const state = stateOf(req);
      const prev = state.prefix;
      state.prefix = memoOn(mount, kJoined, prev, () => join(prev, mount.seg));
      return handle.call(this, req, res, (err) => {
        state.prefix = prev;
        next(err);
      });
    },
  );
}

// The Router and Layer prototypes of an express module (4 or 5): a route
// made on a stand-in router (route() reads caseSensitive, strict and stack
// alone) is a Layer.
function prototypesOf(express) {
  const Router = express.Router;
  // Express 5: Router is router@2's constructor; 4: the prototype itself.
  const routerProto = Router.prototype !== undefined && Router.prototype !== null && typeof Router.prototype.route === 'function' ? Router.prototype : Router;
  const probe = Object.create(routerProto);
  probe.stack = [];
  probe.caseSensitive = false;
  probe.params = {};
  routerProto.route.call(probe, '/customlabels-probe');
  return { routerProto, layerProto: Object.getPrototypeOf(probe.stack[0]) };
}

function patchPrototypes(routerProto, layerProto) {
  patchRouter(routerProto);
  patchLayer(layerProto);
}

function unpatchRouter() {
  tracking.on = false;
  patcher.unwrapAll();
}

module.exports = { prototypesOf, patchPrototypes, unpatchRouter, stateOf, isActive, isLabelled, tracking };
