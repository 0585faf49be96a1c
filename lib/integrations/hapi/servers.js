'use strict';

// customlabels/register and hapi (hapi/integration.js): every server the
// `@hapi/hapi` module makes (Hapi.server(), new Hapi.Server(): one factory)
// is labelled from when it is initialized, started or first injected into
// (the server class's own methods, wrapped once: the server's properties
// stay its own), unless the app registered the plugin itself by then; the
// plugin then merges register's configuration, handed to the server when it
// was made. A request the HTTP integration opened a scope for gets `route`
// on top of it.

const { Patcher } = require('../kit/patcher');
const { handOver } = require('../kit/takeover');
const { requestLabels } = require('../kit/request-labels');
const { patchRequests, isPatched, unpatchRequests } = require('./request');

const patcher = new Patcher('hapi-servers');
// A server register reached: { context, build } (the patch's context),
// kept on the server (a symbol: nothing of the server's own changes).
const kRegistered = Symbol('customlabels.hapi.registered');

// Patches the server's Request class, unless the app's own plugin did.
function labelRequests(server) {
  const reached = server[kRegistered];
  if (reached === undefined) return;
  if (server._core !== undefined && typeof server._core.Request === 'function' && isPatched(server)) return;
  if (reached.context.integration.guard('server', server, reached.context)) patchRequests(server, reached.build, true, true);
}

// What starts serving requests (initialize(), start(), inject()), on the
// class of the server hapi made: a server register reached is labelled from
// its first one on.
function patchServerClass(proto) {
  for (const name of ['initialize', 'start', 'inject']) {
    patcher.wrap(proto, name, (method) =>
      function (...args) {
        labelRequests(this);
        return method.apply(this, args);
      },
    );
  }
}

function instrumentServer(server, context) {
  if (server === null || typeof server !== 'object' || server[kRegistered] !== undefined) return server;
  Object.defineProperty(server, kRegistered, { value: { context, build: requestLabels({}, context.config) } });
  handOver(server, context.config);
  patchServerClass(Object.getPrototypeOf(server));
  return server;
}

function patchHapi(Hapi, context) {
  if (Hapi === null || typeof Hapi !== 'object' || typeof Hapi.server !== 'function') return;
  const make = Hapi.server;
  // Both names are hapi's factory: one wrapper serves both.
  const wrap = () =>
    function server(...args) {
      return instrumentServer(make.apply(this, args), context);
    };
  patcher.wrap(Hapi, 'server', wrap);
  if (Hapi.Server === make) patcher.wrap(Hapi, 'Server', () => Hapi.server);
}

function unpatchHapi() {
  patcher.unwrapAll();
  unpatchRequests();
}

module.exports = { patchHapi, unpatchHapi };
