'use strict';

// customlabels/hapi in the table of integrations (lib/integrations/index.js):
// with register, every server the `@hapi/hapi` module makes (Hapi.server(),
// new Hapi.Server(): one factory) is labelled from when it is initialized,
// started or first injected into, unless the app registered the plugin
// itself by then; the plugin then merges register's configuration, handed
// to the server when it was made.

const { defineIntegration } = require('../kit/integration');

const PACKAGE = '@hapi/hapi';

const integration = defineIntegration({
  name: 'hapi',
  title: 'hapi',
  subpath: './hapi',
  packages: { [PACKAGE]: '>=21.0.0 <22' },
  internals: [
    { package: PACKAGE, name: 'server._core.Request', why: "the per-server Request class: patching it labels one server's requests and no other's" },
    { package: PACKAGE, name: 'Request#_execute, #_lifecycle, #_reply', why: "a request's whole life and what follows its route lookup; hapi's extension points (onRequest, onPreHandler...) are callbacks that wrap nothing after them" },
  ],
  reach: [
    {
      kind: 'module',
      package: PACKAGE,
      patch: (Hapi, context) => require('./servers').labelServers(integration, Hapi, context),
    },
  ],
  unpatch: () => require('./servers').unpatchServers(),
});

module.exports = integration;
