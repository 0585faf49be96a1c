'use strict';

// customlabels/hono in the table of integrations (lib/integrations/index.js).
// What register does with it is in hono/routers.js.

const { defineIntegration } = require('../kit/integration');

const PACKAGE = 'hono';
const ROUTERS = ['smart-router', 'reg-exp-router', 'trie-router', 'pattern-router', 'linear-router'];
const routers = () => require('./routers');
const patch = (mod, context) => routers().patchRouters(mod, context);
const unpatch = () => routers().unpatchRouters();
const cjs = (file) => `hono/dist/cjs/${file}`;

const integration = defineIntegration({
  name: 'hono',
  title: 'Hono',
  subpath: './hono',
  labels: ['method', 'route'],
  packages: { [PACKAGE]: '>=4.0.3 <5' },
  internals: [
    {
      package: PACKAGE,
      of: 'router',
      name: 'Router#add (dist/cjs/router/*/router.js, dist/router/*/router.js)',
      why: "every app's handlers pass through its router class; Hono keeps its dispatch private and its methods on each app, and publishes no channel",
      register: true,
      check: (proto) => typeof proto.add === 'function',
      double: {
        edits: [
          ...ROUTERS.map((r) => [cjs(`router/${r}/router.js`), '\tadd(method, path, handler) {', '\taddMoved(method, path, handler) {']),
          [cjs('router/pattern-router/router.js'), 'this.add(method', 'this.addMoved(method'],
          [cjs('router/smart-router/router.js'), 'router.add(...routes[i])', 'router.addMoved(...routes[i])'],
          [cjs('router/reg-exp-router/prepared-router.js'), 'router.add("ALL"', 'router.addMoved("ALL"'],
          [cjs('hono-base.js'), 'this.router.add(method, path, [handler, r])', 'this.router.addMoved(method, path, [handler, r])'],
        ],
      },
    },
    {
      package: PACKAGE,
      of: 'context',
      name: 'c.req.matchedRoutes',
      why: 'the routes a request matched, as registered (deprecated in 4.11 for hono/route, which 4.0-4.7 lack); checked at the first request',
      check: (c) => Array.isArray(c.req.matchedRoutes),
      double: { edits: [[cjs('request.js'), 'matchedRoutes', 'matchedRoutesMoved']] },
    },
  ],
  reach: [
    // CommonJS: the routers hono's entry loaded; by name: hono/router/<r>;
    // ESM: the router modules (module.registerHooks).
    ...ROUTERS.map((r) => ({ kind: 'file', package: PACKAGE, file: `dist/cjs/router/${r}/router.js`, patch, unpatch })),
    ...ROUTERS.map((r) => ({ kind: 'module', package: PACKAGE, requests: [`hono/router/${r}`], patch, unpatch })),
    ...ROUTERS.map((r) => ({ kind: 'esm-file', package: PACKAGE, file: `dist/router/${r}/router.js`, patch, unpatch })),
  ],
});

module.exports = integration;
