'use strict';

// customlabels/hono in the table of integrations (lib/integrations/index.js).
// What register does with it is in hono/routers.js.

const { defineIntegration } = require('../kit/integration');

const PACKAGE = 'hono';
const ROUTERS = ['smart-router', 'reg-exp-router', 'trie-router', 'pattern-router', 'linear-router'];
const patchRouters = (mod, context) => require('./routers').patchRouters(integration, mod, context);

const integration = defineIntegration({
  name: 'hono',
  title: 'Hono',
  subpath: './hono',
  packages: { [PACKAGE]: '>=4.0.3 <5' },
  internals: [
    { package: PACKAGE, name: 'Router#add (dist/cjs/router/*/router.js, dist/router/*/router.js)', why: "register only: every app's handlers pass through its router class; Hono keeps its dispatch private and its methods on each app, and publishes no channel" },
    { package: PACKAGE, name: 'c.req.matchedRoutes', why: 'the routes a request matched, as registered (deprecated in 4.11 for hono/route, which 4.0-4.7 lack)' },
  ],
  reach: [
    // CommonJS: the routers hono's entry loaded; by name: hono/router/<r>;
    // ESM: the router modules (module.registerHooks).
    ...ROUTERS.map((r) => ({ kind: 'file', package: PACKAGE, file: `dist/cjs/router/${r}/router.js`, patch: patchRouters })),
    ...ROUTERS.map((r) => ({ kind: 'module', package: PACKAGE, requests: [`hono/router/${r}`], patch: patchRouters })),
    ...ROUTERS.map((r) => ({ kind: 'esm-file', package: PACKAGE, file: `dist/router/${r}/router.js`, patch: patchRouters })),
  ],
  unpatch: () => require('./routers').unpatchRouters(),
});

module.exports = integration;
