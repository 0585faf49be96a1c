'use strict';

// The hapi plugin (`customlabels/hapi`), @hapi/hapi 21+:
//
//   await server.register({ plugin: require('customlabels/hapi'), options: { labels: (request) => ({ tenant: ... }) } });
//
// labels every request of the server with `method` and, once hapi found the
// route, `route` = request.route.path ('/users/{id}', the server's and the
// plugin's prefixes included; UNMATCHED for 404s and for onRequest, which runs
// before the lookup). Everything of the request's lifecycle runs labelled:
// onRequest; then, under the route, onPreAuth, authentication, onCredentials,
// onPostAuth, payload parsing, validation, onPreHandler, pre-handlers, the
// handler, onPostHandler, onPreResponse, response validation, transmission
// and onPostResponse.
//
// hapi's extension points are callbacks, none of which wraps the rest of the
// request, so the plugin wraps three methods of the server's own Request
// class (hapi makes one subclass per server, so other servers are untouched):
// _execute (the whole request), and _lifecycle and _reply (everything after
// the route lookup, in one scope). The plugin declares `requirements.hapi`; on a hapi whose
// Request lacks those methods it registers as a no-op and warns once (a
// profiling library never stops an app from starting).

const pkg = require('../../package.json');
const { withLabels } = require('../index');
const { requestLabels, runLabelled, UNMATCHED } = require('./request-labels');
const { warnOnce } = require('../core/warnings');

const kPatched = Symbol.for('customlabels.hapi.patched');
const kRouteLabels = Symbol('customlabels.hapi.routeLabels');
const HAPI_RANGE = '>=21.0.0';
const unmatched = Object.freeze({ route: UNMATCHED });

// One frozen { route } per route: withLabels finds its set by identity.
function routeLabels(route) {
  if (route === undefined || route === null || route.method === '_special') return unmatched; // notFound, badRequest
  let labels = route[kRouteLabels];
  if (labels === undefined) {
    labels = Object.freeze({ route: String(route.path) });
    if (Object.isExtensible(route)) Object.defineProperty(route, kRouteLabels, { value: labels });
  }
  return labels;
}

// hapi lower-cases methods; labels show them as HTTP spells them (GET).
const upper = new Map();
function methodOf(request) {
  const method = request.method;
  let out = upper.get(method);
  if (out === undefined) {
    out = String(method).toUpperCase();
    if (upper.size < 64) upper.set(method, out);
  }
  return out;
}

function warnUnsupported(what) {
  warnOnce('hapi-unsupported', `customlabels/hapi: this hapi's Request has no ${what}; requests run unlabelled (the plugin supports @hapi/hapi ${HAPI_RANGE})`, 'CUSTOMLABELS_UNSUPPORTED_FRAMEWORK');
}

// Patches a server's Request prototype; false if it was patched already.
function patchRequest(proto, build, withRoute) {
  if (Object.prototype.hasOwnProperty.call(proto, kPatched)) return false;
  Object.defineProperty(proto, kPatched, { value: true });
  const { _execute: execute, _lifecycle: lifecycle, _reply: reply } = proto;
  proto._execute = function _execute() {
    return runLabelled(build, methodOf(this), undefined, this, () => execute.call(this));
  };
  if (!withRoute) return true;
  // One route scope for the lifecycle and the reply that follows it:
  // _execute runs `await this._lifecycle(); this._reply();`, so replying at the
  // end of the lifecycle, in its scope, leaves _execute's _reply() a no-op
  // (the request is replied). _reply() from elsewhere (a timeout, a client
  // that went away, a failed onRequest) enters the route scope itself.
  proto._lifecycle = function _lifecycle() {
    return withLabels(routeLabels(this.route), async () => {
      await lifecycle.call(this);
      return reply.call(this);
    });
  };
  proto._reply = function _reply(exit) {
    return withLabels(routeLabels(this.route), () => reply.call(this, exit));
  };
  return true;
}

function register(server, options = {}) {
  const build = requestLabels(options);
  const Request = server._core !== undefined ? server._core.Request : undefined;
  if (typeof Request !== 'function') return warnUnsupported('per-server class (server._core.Request)');
  const missing = ['_execute', '_lifecycle', '_reply'].filter((name) => typeof Request.prototype[name] !== 'function');
  if (missing.length > 0) return warnUnsupported(missing.join(', '));
  if (!patchRequest(Request.prototype, build, options.route !== false)) {
    server.log(['customlabels', 'warning'], 'customlabels/hapi is registered twice on one server; the first registration\'s options apply');
  }
}

// customlabels/register: every server the `@hapi/hapi` module makes
// (Hapi.server(), new Hapi.Server()) gets the plugin's patches when it is
// initialized, started or first injected into, unless the app registered
// the plugin itself by then (whose options then apply).
const kLabelsServers = Symbol.for('customlabels.hapi.labelsServers');
const kInstrumented = Symbol('customlabels.hapi.instrumented');

function instrumentServer(server, options) {
  if (server === null || typeof server !== 'object' || server[kInstrumented] === true) return server;
  server[kInstrumented] = true;
  for (const name of ['initialize', 'start', 'inject']) {
    const method = server[name];
    if (typeof method !== 'function') continue;
    server[name] = function (...args) {
      const Request = server._core !== undefined ? server._core.Request : undefined;
      if (typeof Request === 'function' && !Object.prototype.hasOwnProperty.call(Request.prototype, kPatched)) register(server, options);
      return method.apply(this, args);
    };
  }
  return server;
}

function labelServers(Hapi, options = {}) {
  if (Hapi === null || typeof Hapi !== 'object' || Hapi[kLabelsServers] === true) return;
  if (typeof Hapi.server !== 'function' || typeof Hapi.Server !== 'function') return;
  Object.defineProperty(Hapi, kLabelsServers, { value: true });
  requestLabels(options); // validated now, not at the first request
  // Both are hapi's factory (a function that returns the server, so that
  // `new Hapi.Server()` works too): one wrapper serves both.
  const make = Hapi.server;
  const wrapped = function server(...args) {
    return instrumentServer(make.apply(this, args), options);
  };
  Hapi.server = wrapped;
  if (Hapi.Server === make) Hapi.Server = wrapped;
}

module.exports = {
  labelServers,
  plugin: {
    name: 'customlabels',
    version: pkg.version,
    requirements: { hapi: HAPI_RANGE },
    // Registering it again (another plugin depends on it too) is a no-op.
    once: true,
    register,
  },
};
