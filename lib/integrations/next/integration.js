'use strict';

// Next.js 15 and 16 in the table of integrations (lib/integrations/index.js):
// register only (next/server.js says what it labels, and where).

const { defineIntegration } = require('../kit/integration');

const PACKAGE = 'next';

const integration = defineIntegration({
  name: 'next',
  title: 'Next.js',
  subpath: null,
  packages: { [PACKAGE]: '15.x || 16.x' },
  internals: [
    { package: PACKAGE, name: 'workAsyncStorage.run (dist/server/app-render/work-async-storage.external.js), store.route', why: "where Next.js opens the app router's work store for a route, with its pattern; its OpenTelemetry spans name the route only after the handler ran" },
    { package: PACKAGE, name: 'NextNodeServer#handleRequest (dist/server/next-server.js), NodeNextRequest#_req', why: "where every request of next start begins (the request Node.js made, wrapped as _req); Next.js publishes no hook around a request" },
    { package: PACKAGE, name: 'NextNodeServer#handleApiRequest, match.definition.pathname', why: 'pages router API routes run no work store; this is where their route is matched' },
  ],
  reach: [
    {
      kind: 'module',
      package: PACKAGE,
      requests: ['next/dist/server/app-render/work-async-storage.external.js', 'next/dist/server/app-render/work-async-storage.external'],
      patch: (mod, context) => require('./server').labelWorkStore(integration, mod, context),
    },
    {
      kind: 'relative',
      package: PACKAGE,
      test: (request) => request === './next-server' || request === '../next-server' || request === './next-server.js',
      patch: (mod, context) => require('./server').labelServer(integration, mod, context),
    },
  ],
  unpatch: () => require('./server').unpatchNext(),
});

module.exports = integration;
