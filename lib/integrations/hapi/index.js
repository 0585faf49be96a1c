'use strict';

// The hapi plugin (`customlabels/hapi`), @hapi/hapi 21:
//
//   await server.register({ plugin: require('customlabels/hapi').plugin, options: { labels: (request) => ({ tenant: ... }) } });
//
// labels every request of the server with `method` and, once hapi found the
// route, `route` = request.route.path ('/users/{id}', the server's and the
// plugin's prefixes included; UNMATCHED for 404s and for onRequest, which runs
// before the lookup). Everything of the request's lifecycle runs labelled:
// onRequest; then, under the route, onPreAuth, authentication, onCredentials,
// onPostAuth, payload parsing, validation, onPreHandler, pre-handlers, the
// handler, onPostHandler, onPreResponse, response validation, transmission
// and onPostResponse (hapi/request.js). On a hapi outside the supported
// range, or whose Request lacks what it patches, it registers as a no-op and
// warns once: it declares no `requirements.hapi`, which hapi would enforce
// by failing the registration (a profiling library never stops an app from
// starting).

const pkg = require('../../../package.json');
const { requestLabels } = require('../kit/request-labels');
const { registeredOf } = require('../kit/takeover');
const { byHand } = require('../kit/integration');
const { versionOfExports } = require('../kit/versions');
const integration = require('./integration');
const { patchRequests } = require('./request');

const PACKAGE = '@hapi/hapi';

// The version of the hapi that made `server` (server.version is its
// package's), or null.
function versionOf(server) {
  return typeof server.version === 'string' ? server.version : versionOfExports(server, PACKAGE);
}

function register(server, options = {}) {
  // (Under customlabels/register, its process and header labels join these:
  // register handed the server its configuration.)
  const build = requestLabels(options, registeredOf(server));
  const version = versionOf(server);
  if (!integration.supports(PACKAGE, version)) return;
  if (!integration.guard('server', server, { version, config: byHand(options) })) return;
  if (!patchRequests(server, build, options.route !== false)) {
    server.log(['customlabels', 'warning'], "customlabels/hapi is registered twice on one server; the first registration's options apply");
  }
}

module.exports = {
  plugin: {
    name: 'customlabels',
    version: pkg.version,
    // Registering it again (another plugin depends on it too) is a no-op.
    once: true,
    register,
  },
};
