'use strict';

// customlabels/koa in the table of integrations (lib/integrations/index.js).

const { defineIntegration } = require('../kit/integration');

function routers(pkg) {
  return {
    kind: 'module',
    package: pkg,
    esm: pkg === '@koa/router',
    patch: (mod, context) => require('./apps').labelRouters(integration, pkg, mod, context),
  };
}

const integration = defineIntegration({
  name: 'koa',
  title: 'Koa',
  subpath: './koa',
  packages: { koa: '2.x || 3.x', '@koa/router': '>=12.0.0 <16', 'koa-router': '>=12.0.0 <15' },
  internals: [
    { package: 'koa', name: 'Application#callback', why: "register labels each request as the handler callback() returns receives it (the app's middleware stays its own); Koa has no hook that runs before the app's own middleware" },
    { package: '@koa/router', name: 'Router#register, layer.stack, ctx._matchedRoute', why: "where a route's stack is built; the router sets ctx._matchedRoute before running it, and no hook enters a scope when a route matches (the same in koa-router)" },
  ],
  reach: [
    {
      kind: 'module',
      package: 'koa',
      patch: (koa, context) => require('./apps').labelApps(integration, koa, context),
    },
    routers('@koa/router'),
    routers('koa-router'),
  ],
  unpatch: () => require('./apps').unpatchApps(),
});

module.exports = integration;
