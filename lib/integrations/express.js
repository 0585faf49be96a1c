'use strict';

// Express middleware (`customlabels/express`), Express 4 and 5:
//
//   const { labels } = require('customlabels/express');
//   app.use(labels({ labels: (req) => ({ tenant: req.get('x-tenant') }) }));
//
// The middleware labels the request with `method` (and `route` UNMATCHED);
// once a route matches, its handlers, and everything they cause, see `route`
// set to the full route template: the paths of the app.use()/router.use()
// mounts the request went through plus the route's own path
// ('/api/users/:id'), never the raw path. A RegExp path shows as its source
// (String(re)), an array path as its elements joined with ','.
//
// Express keeps no mount templates, so this module patches, once per Router
// and Layer prototype (both Express lines, any number of copies):
// - Router#use, to remember the path each new layer was mounted at;
// - Layer#handle_request (4) / Layer#handleRequest (5), to track the mounts a
//   request is in and to enter the route's scope when a route layer runs;
// - Router#process_params (4) / Router#param (5), so router.param callbacks
//   of a matched route run in its scope too.
// Prototype methods are patched, never layer.handle, and the wrappers carry
// no shimmer markers, so OpenTelemetry's Express instrumentation (which
// wraps layer.handle and Router#use) stacks with this one either way round.
// Mounts made before the patch (a router built before this module was
// required, on Express 4 or router < 2.3) show as '*': require this module
// first, or call instrument(require('express')) early.

const { withLabels } = require('../index');
const { requestLabels, runLabelled } = require('./request-labels');

// Symbol.for: copies of this package cooperate instead of patching twice.
const kPatched = Symbol.for('customlabels.express.patched');
const kMountPath = Symbol.for('customlabels.express.mountPath');
// A request's state, one object added once per request (adding properties
// to `req` one by one cost more, on Node 20 most): { active: a labels()
// middleware runs for it, prefix: the mount prefixes it went through }.
const kState = Symbol.for('customlabels.express.state.v2');
const UNKNOWN_MOUNT = '*';
// Per-route and per-layer caches (private to the copy that patched).
const kRouteLabels = Symbol('customlabels.express.routeLabels');
const kMount = Symbol('customlabels.express.mount');
// Entries per cache: prefixes and templates come from the app's mounts and
// routes, so a cache never grows past a few entries; the bound only guards
// against an app that builds routes at run time.
const MAX_CACHED = 256;
// Mount prefixes are tracked for every request once any labels() middleware
// exists, so a labels() mounted below the app still sees the full template.
let tracking = false;
// customlabels/register: the express application prototypes it made label
// every request, and the apps that have a labels() middleware of their own.
const kLabelsApps = Symbol.for('customlabels.express.labelsApps');
const kHandWired = Symbol.for('customlabels.express.handWired');

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

function mountPathOf(layer) {
  if (layer[kMountPath] !== undefined) return layer[kMountPath];
  if (layer.rawPath !== undefined) return layer.rawPath; // router >= 2.3
  return undefined;
}

function stateOf(req) {
  let state = req[kState];
  if (state === undefined) {
    state = { active: false, prefix: '' };
    req[kState] = state;
  }
  return state;
}

const isActive = (req) => req[kState] !== undefined && req[kState].active;
const prefixOf = (req) => (req[kState] === undefined ? '' : req[kState].prefix);

function routeTemplate(req, route) {
  const template = join(prefixOf(req), route.path);
  return template === '' ? '/' : template;
}

// { route: template } for a route reached through the request's mounts: one
// frozen object per route and mount prefix, so withLabels finds the set it
// built the first time by identity instead of reading and joining per request.
function routeLabels(req, route) {
  const prefix = prefixOf(req);
  let byPrefix = route[kRouteLabels];
  if (byPrefix === undefined) {
    byPrefix = new Map();
    if (Object.isExtensible(route)) Object.defineProperty(route, kRouteLabels, { value: byPrefix });
  }
  let labels = byPrefix.get(prefix);
  if (labels === undefined) {
    labels = Object.freeze({ route: routeTemplate(req, route) });
    if (byPrefix.size < MAX_CACHED) byPrefix.set(prefix, labels);
  }
  return labels;
}

// A mount layer's segment and the prefixes it made (prefix before -> after).
function mountOf(layer) {
  let mount = layer[kMount];
  if (mount === undefined) {
    const path = mountPathOf(layer);
    const seg = path === undefined ? UNKNOWN_MOUNT : segment(path);
    mount = { seg: seg === '/' || seg === '' ? null : seg, joined: new Map() };
    if (Object.isExtensible(layer)) Object.defineProperty(layer, kMount, { value: mount });
  }
  return mount;
}

function joinMount(mount, prev) {
  let joined = mount.joined.get(prev);
  if (joined === undefined) {
    joined = join(prev, mount.seg);
    if (mount.joined.size < MAX_CACHED) mount.joined.set(prev, joined);
  }
  return joined;
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
  if (proto[kPatched]) return;
  const use = proto.use;
  Object.defineProperty(proto, kPatched, { value: true });
  proto.use = function use_(...args) {
    const before = this.stack.length;
    const result = use.apply(this, args);
    const path = usePath(args);
    for (let i = before; i < this.stack.length; i++) this.stack[i][kMountPath] = path;
    return result;
  };
  const processParams = proto.process_params;
  if (typeof processParams !== 'function' && typeof proto.param === 'function') {
    // Express 5: router.param callbacks run right after Router#handle set
    // req.route to the matched route (it is stale only for a param of a
    // mount path, whose callbacks then show that earlier route).
    const param = proto.param;
    proto.param = function param_(name, fn) {
      if (typeof fn !== 'function') return param.call(this, name, fn);
      return param.call(this, name, function paramCallback(req, res, next, value, key) {
        if (!isActive(req) || req.route === undefined) return fn.call(this, req, res, next, value, key);
        return withLabels(routeLabels(req, req.route), () => fn.call(this, req, res, next, value, key));
      });
    };
  }
  if (typeof processParams === 'function') {
    // Express 4: runs after a layer matched, before its param callbacks and
    // handlers.
    proto.process_params = function process_params(layer, called, req, res, done) {
      if (layer.route === undefined || !isActive(req)) {
        return processParams.call(this, layer, called, req, res, done);
      }
      return withLabels(routeLabels(req, layer.route), () =>
        processParams.call(this, layer, called, req, res, done),
      );
    };
  }
}

function patchLayer(proto) {
  if (proto[kPatched]) return;
  Object.defineProperty(proto, kPatched, { value: true });
  const name = typeof proto.handleRequest === 'function' ? 'handleRequest' : 'handle_request';
  const handle = proto[name];
  const enterRoute = name === 'handleRequest'; // Express 4 enters it in process_params
  proto[name] = function handleRequest(req, res, next) {
    if (!tracking) return handle.call(this, req, res, next);
    if (this.route !== undefined) {
      if (!enterRoute || !isActive(req)) return handle.call(this, req, res, next);
      return withLabels(routeLabels(req, this.route), () => handle.call(this, req, res, next));
    }
    // A layer of a route's own stack (it has a method, maybe undefined for
    // route.all): no mount.
    if (Object.prototype.hasOwnProperty.call(this, 'method')) return handle.call(this, req, res, next);
    const mount = mountOf(this);
    if (mount.seg === null) return handle.call(this, req, res, next);
    const state = stateOf(req);
    const prev = state.prefix;
    state.prefix = joinMount(mount, prev);
    return handle.call(this, req, res, (err) => {
      state.prefix = prev;
      next(err);
    });
  };
}

// The Router and Layer prototypes of an express module (4 or 5).
function prototypesOf(express) {
  const Router = express.Router;
  // Express 5: Router is router@2's constructor; 4: the prototype itself.
  const routerProto = typeof Router.prototype.route === 'function' ? Router.prototype : Router;
  const probe = Object.create(routerProto);
  probe.stack = [];
  probe.caseSensitive = false;
  probe.params = {};
  routerProto.route.call(probe, '/customlabels-probe');
  const layerProto = Object.getPrototypeOf(probe.stack[0]);
  return { routerProto, layerProto };
}

// Patches an express module (require('express')); idempotent.
function instrument(express) {
  const { routerProto, layerProto } = prototypesOf(express);
  patchRouter(routerProto);
  patchLayer(layerProto);
}

// The Express you installed, if it resolves from here (a peer dependency).
function instrumentInstalled() {
  let express;
  try {
    express = require('express');
  } catch {
    return false;
  }
  instrument(express);
  return true;
}

// On first use in an app whose express did not resolve from here: patch
// the prototypes its router uses (mounts made before stay '*').
function instrumentApp(app) {
  const router = app._router ?? app.router;
  const layer = router && router.stack && router.stack[0];
  if (layer === undefined) return;
  patchLayer(Object.getPrototypeOf(layer));
  patchRouter(Object.getPrototypeOf(router));
}

function labels(options = {}) {
  const build = requestLabels(options);
  const withRoute = options.route !== false;
  tracking = tracking || withRoute;
  const apps = new WeakSet();
  return function customlabels(req, res, next) {
    if (req.app !== undefined && !apps.has(req.app)) {
      apps.add(req.app);
      // From now on this middleware labels the app's requests, not
      // register's (labelApps).
      req.app[kHandWired] = true;
      if (withRoute) instrumentApp(req.app);
    }
    if (withRoute) stateOf(req).active = true;
    runLabelled(build, req.method, undefined, req, next);
  };
}

// customlabels/register: every app of `express` (the module) runs each
// request under labels(options), from app.handle on, unless the app has a
// labels() middleware of its own, whose options then apply. A mounted
// sub-app's requests are labelled by the app they came through.
function labelApps(express, options = {}) {
  instrument(express);
  tracking = true;
  const proto = express.application;
  if (proto === undefined || typeof proto.handle !== 'function' || Object.prototype.hasOwnProperty.call(proto, kLabelsApps)) return;
  Object.defineProperty(proto, kLabelsApps, { value: true });
  const build = requestLabels(options);
  const withRoute = options.route !== false;
  const handle = proto.handle;
  proto.handle = function handle_(req, res, callback) {
    if (this[kHandWired] === true || isActive(req)) return handle.call(this, req, res, callback);
    if (withRoute) stateOf(req).active = true;
    return runLabelled(build, req.method, undefined, req, () => handle.call(this, req, res, callback));
  };
}

// Not under customlabels/register, which instruments the express the app
// loads itself.
if (globalThis[Symbol.for('customlabels.register.config')] === undefined) instrumentInstalled();

module.exports = { labels, instrument, labelApps };
