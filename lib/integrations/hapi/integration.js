'use strict';

// customlabels/hapi in the table of integrations (lib/integrations/index.js):
// with register, every server the `@hapi/hapi` module makes (Hapi.server(),
// new Hapi.Server(): one factory) is labelled from when it is initialized,
// started or first injected into, unless the app registered the plugin
// itself by then; the plugin then merges register's configuration, handed
// to the server when it was made.

const { defineIntegration } = require('../kit/integration');

const PACKAGE = '@hapi/hapi';
const servers = () => require('./servers');
const lib = (file) => `@hapi/hapi/lib/${file}`;
// A method of a server's Request class, checked on the server.
const requestMethod = (name, why, edits) => ({
  package: PACKAGE,
  of: 'server',
  name: `Request#${name}`,
  why,
  check: (server) => typeof server._core.Request.prototype[name] === 'function',
  double: { edits },
});

const integration = defineIntegration({
  name: 'hapi',
  title: 'hapi',
  subpath: './hapi',
  labels: ['method', 'route'],
  packages: { [PACKAGE]: '>=21.0.0 <22' },
  internals: [
    {
      package: PACKAGE,
      of: 'server',
      name: 'server._core.Request',
      why: "the per-server Request class: patching it labels one server's requests and no other's",
      check: (server) => typeof server._core.Request === 'function',
      double: {
        edits: [
          [lib('core.js'), '    Request = class extends Request { };', '    RequestMoved = class extends Request { };'],
          [lib('request.js'), 'new server._core.Request(', 'new server._core.RequestMoved('],
          [lib('server.js'), 'this._core.Request.', 'this._core.RequestMoved.'],
        ],
      },
    },
    requestMethod('_execute', "a request's whole life; hapi's extension points (onRequest, onPreHandler...) are callbacks that wrap nothing after them", [
      [lib('core.js'), 'request._execute()', 'request._executeMoved()'],
      [lib('request.js'), 'async _execute() {', 'async _executeMoved() {'],
    ]),
    requestMethod('_lifecycle', 'what follows the route lookup: the route is known from there on', [[lib('request.js'), '_lifecycle', '_lifecycleMoved']]),
    requestMethod('_reply', 'the response after the lifecycle, in the route scope too', [
      [lib('core.js'), '_reply(', '_replyMoved('],
      [lib('request.js'), '_reply(', '_replyMoved('],
    ]),
  ],
  reach: [{ kind: 'module', package: PACKAGE, patch: (Hapi, context) => servers().patchHapi(Hapi, context), unpatch: () => servers().unpatchHapi() }],
});

module.exports = integration;
