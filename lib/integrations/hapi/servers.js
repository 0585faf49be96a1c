'use strict';

// customlabels/register and hapi (hapi/integration.js): every server the
// `@hapi/hapi` module makes (Hapi.server(), new Hapi.Server(): one factory)
// is labelled from when it is initialized, started or first injected into,
// unless the app registered the plugin itself by then; the plugin then
// merges register's configuration, handed to the server when it was made.

const { Patcher } = require('../kit/patcher');
const { handOver } = require('../kit/takeover');
const { hasInternals } = require('../kit/versions');
const { requestLabels } = require('../kit/request-labels');
const { patchRequests, requestInternals, isPatched, unpatchRequests } = require('./request');

const PACKAGE = '@hapi/hapi';
const patcher = new Patcher('hapi-servers');
const kInstrumented = Symbol('customlabels.hapi.instrumented');

function instrumentServer(integration, server, registered, version) {
  if (server === null || typeof server !== 'object' || server[kInstrumented] === true) return server;
  server[kInstrumented] = true;
  handOver(server, registered);
  const build = requestLabels({}, registered);
  for (const name of ['initialize', 'start', 'inject']) {
    const method = server[name];
    if (typeof method !== 'function') continue;
    server[name] = function (...args) {
      if (server._core === undefined || typeof server._core.Request !== 'function' || !isPatched(server)) {
        if (hasInternals(integration, PACKAGE, version, requestInternals(server))) patchRequests(server, build, true);
      }
      return method.apply(this, args);
    };
  }
  return server;
}

function labelServers(integration, Hapi, { version, config }) {
  if (Hapi === null || typeof Hapi !== 'object' || typeof Hapi.server !== 'function') return;
  const make = Hapi.server;
  // Both names are hapi's factory: one wrapper serves both.
  const wrap = () =>
    function server(...args) {
      return instrumentServer(integration, make.apply(this, args), config, version);
    };
  patcher.wrap(Hapi, 'server', wrap);
  if (Hapi.Server === make) patcher.wrap(Hapi, 'Server', () => Hapi.server);
}

function unpatchServers() {
  patcher.unwrapAll();
  unpatchRequests();
}

module.exports = { labelServers, unpatchServers };
