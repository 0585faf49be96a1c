'use strict';

// Labels for hapi requests (customlabels/hapi): hapi's extension points are
// callbacks, none of which wraps the rest of a request, so three methods of
// a server's own Request class are wrapped (hapi makes one subclass per
// server, `server._core.Request`, so other servers are untouched):
// _execute (the whole request), and _lifecycle and _reply (everything after
// the route lookup, in one scope).

const { withLabels } = require('../../index');
const { runLabelled, amendWith, amendUnmatched } = require('../kit/request-labels');
const { requestScopeOf, follow, UNMATCHED_ROUTE } = require('../kit/request-scope');
const { Patcher } = require('../kit/patcher');
const { BoundedCache } = require('../kit/cache');

const patcher = new Patcher('hapi');
const kRouteLabels = Symbol('customlabels.hapi.routeLabels');
const unmatched = UNMATCHED_ROUTE;

// One frozen { route } per route, kept on the route: withLabels finds its
// set by identity.
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
const upper = new BoundedCache(64);
const methodOf = (request) => upper.get(request.method, (method) => String(method).toUpperCase());

// The request's events (its payload, read by hapi in the route's
// lifecycle: kit/request-scope.js) follow the route scope.
function followRoute(request) {
  const scope = request.raw === undefined ? undefined : requestScopeOf(request.raw.req);
  if (scope !== undefined) follow(scope);
}

// Patches `server`'s Request class with `build` (kit/request-labels.js);
// false if it was patched already. A request the HTTP integration opened a
// scope for (kit/request-scope.js) takes build's labels on top of that
// scope (`byRegister`: route (unmatched) alone, the scope holds the rest).
function patchRequests(server, build, withRoute, byRegister = false) {
  const proto = server._core.Request.prototype;
  if (!patcher.wrap(proto, '_execute', (execute) =>
    function _execute() {
      const scope = this.raw === undefined ? undefined : requestScopeOf(this.raw.req);
      if (scope === undefined) return runLabelled(build, methodOf(this), undefined, this, () => execute.call(this));
      if (byRegister) amendUnmatched(scope);
      else amendWith(scope, build, methodOf(this), undefined, this);
      return execute.call(this);
    },
  )) {
    return false;
  }
  if (!withRoute) return true;
  const reply = proto._reply;
  // One route scope for the lifecycle and the reply that follows it:
  // _execute runs `await this._lifecycle(); this._reply();`, so replying at the
  // end of the lifecycle, in its scope, leaves _execute's _reply() a no-op
  // (the request is replied). _reply() from elsewhere (a timeout, a client
  // that went away, a failed onRequest) enters the route scope itself.
  patcher.wrap(proto, '_lifecycle', (lifecycle) =>
    function _lifecycle() {
      return withLabels(routeLabels(this.route), async () => {
        followRoute(this);
        await lifecycle.call(this);
        return reply.call(this);
      });
    },
  );
  patcher.wrap(proto, '_reply', (original) =>
    function _reply(exit) {
      return withLabels(routeLabels(this.route), () => {
        followRoute(this);
        return original.call(this, exit);
      });
    },
  );
  return true;
}

const isPatched = (server) => Patcher.isWrapped(server._core.Request.prototype, '_execute');
const unpatchRequests = () => patcher.unwrapAll();

module.exports = { patchRequests, isPatched, unpatchRequests };
