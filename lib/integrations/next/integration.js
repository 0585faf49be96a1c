'use strict';

// Next.js 15 and 16 in the table of integrations (lib/integrations/index.js):
// register only (next/server.js says what it labels, and where).

const { defineIntegration } = require('../kit/integration');

const PACKAGE = 'next';
const server = () => require('./server');
const unpatch = () => server().unpatchNext();
const dist = (file) => `next/dist/server/${file}`;
const serverMethod = (name, why, edits) => ({
  package: PACKAGE,
  of: 'server',
  name: `NextNodeServer#${name}`,
  why,
  register: true,
  check: (proto) => typeof proto[name] === 'function',
  double: { edits },
});

const integration = defineIntegration({
  name: 'next',
  title: 'Next.js',
  subpath: null,
  labels: ['method', 'route'],
  packages: { [PACKAGE]: '15.x || 16.x' },
  internals: [
    {
      package: PACKAGE,
      of: 'work store',
      name: 'store.route, of the work store workAsyncStorage.run is given (dist/server/app-render/work-async-storage.external.js)',
      why: "the app router's route pattern, in the work store Next.js opens around the route (its storage's run() is wrapped); its OpenTelemetry spans name the route only after the handler ran. Checked on the first store",
      register: true,
      check: (store) => typeof store.route === 'string',
      // Next.js reads store.route itself (its build prerenders with it):
      // tested by test/js/integrations/next.test.js's guard test.
      double: { none: 'Next.js reads store.route itself: a copy without it fails its own build' },
    },
    serverMethod('handleRequest', "where every request of next start begins (with Node.js's request, wrapped as its _req); Next.js publishes no hook around a request", [
      [dist('base-server.js'), '    async handleRequest(req, res, parsedUrl) {', '    async handleRequestMoved(req, res, parsedUrl) {'],
      [dist('base-server.js'), 'this.handleRequest.bind(this)', 'this.handleRequestMoved.bind(this)'],
      [dist('base-server.js'), 'return this.handleRequest(req, res, parsedUrl);', 'return this.handleRequestMoved(req, res, parsedUrl);'],
    ]),
    serverMethod('handleApiRequest', 'pages router API routes run no work store; this is where their route is matched (match.definition.pathname)', [[dist('next-server.js'), 'handleApiRequest', 'handleApiRequestMoved']]),
  ],
  reach: [
    {
      kind: 'module',
      package: PACKAGE,
      requests: ['next/dist/server/app-render/work-async-storage.external.js', 'next/dist/server/app-render/work-async-storage.external'],
      patch: (mod, context) => server().patchWorkStore(mod, context),
      unpatch,
    },
    {
      kind: 'relative',
      package: PACKAGE,
      test: (request) => request === './next-server' || request === '../next-server' || request === './next-server.js',
      patch: (mod, context) => server().patchServer(mod, context),
      unpatch,
    },
  ],
});

module.exports = integration;
