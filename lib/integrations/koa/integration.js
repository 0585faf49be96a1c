'use strict';

// customlabels/koa in the table of integrations (lib/integrations/index.js).

const { defineIntegration } = require('../kit/integration');

const apps = () => require('./apps');
const ROUTERS = ['@koa/router', 'koa-router'];

// A router module's reach, and its internals: where a route's stack is
// built, and the route the router says it matched. The doubles: @koa/router
// 15's dist (both builds), koa-router 14's lib.
const FILES = { '@koa/router': ['dist/index.js', 'dist/index.mjs'], 'koa-router': ['lib/router.js'] };
const routerReach = (pkg) => ({
  kind: 'module',
  package: pkg,
  esm: pkg === '@koa/router',
  patch: (mod, context) => apps().patchRouters(pkg, mod, context),
  unpatch: () => apps().unpatchKoa(),
});
const routerInternals = (pkg) => [
  {
    package: pkg,
    of: pkg,
    name: 'Router#register',
    why: "where a route's layer is built (every verb method, all(), use() go through it); the layer it returns gets one middleware at the head of its stack that enters the route. No hook enters a scope when a route matches",
    check: (proto) => typeof proto.register === 'function',
    double: { edits: FILES[pkg].map((f) => [`${pkg}/${f}`, 'register', 'registerMoved']) },
  },
  {
    package: pkg,
    of: `${pkg} context`,
    name: 'ctx._matchedRoute',
    why: 'the template of the route that matched, set by the router before the route runs (a request checks it at its route\'s first request)',
    check: (ctx) => ctx._matchedRoute !== undefined,
    double: { edits: FILES[pkg].map((f) => [`${pkg}/${f}`, '_matchedRoute =', '_matchedRouteMoved =']) },
  },
];

const integration = defineIntegration({
  name: 'koa',
  title: 'Koa',
  subpath: './koa',
  labels: ['method', 'route'],
  packages: { koa: '2.x || 3.x', '@koa/router': '>=12.0.0 <16', 'koa-router': '>=12.0.0 <15' },
  internals: [
    {
      package: 'koa',
      of: 'koa',
      name: 'Application#callback',
      why: "register labels each request as the handler callback() returns receives it (the app's middleware stays its own); Koa has no hook that runs before the app's own middleware",
      register: true,
      check: (Application) => typeof Application.prototype.callback === 'function',
      double: {
        edits: [
          ['koa/lib/application.js', '  callback () {', '  callbackMoved () {'],
          ['koa/lib/application.js', 'http.createServer(this.callback())', 'http.createServer(this.callbackMoved())'],
        ],
      },
    },
    ...ROUTERS.flatMap(routerInternals),
  ],
  reach: [{ kind: 'module', package: 'koa', patch: (koa, context) => apps().patchKoa(koa, context), unpatch: () => apps().unpatchKoa() }, ...ROUTERS.map(routerReach)],
});

module.exports = integration;
