'use strict';

// customlabels/express in the table of integrations (lib/integrations/index.js).
// What its patch does is in express/apps.js, loaded when an app loads
// Express.

const { defineIntegration } = require('../kit/integration');

const PACKAGE = 'express';
const apps = () => require('./apps');
// The doubles are of Express 5 (router 2): the router's own use() and
// param() become each router's, off the prototype; the others are renamed.
const ownMethod = (name) => ({
  edits: [
    ['router/index.js', `Router.prototype.${name} = function ${name} (`, `Router.prototype.${name}Moved = function ${name} (`],
    ['router/index.js', '  Object.setPrototypeOf(router, this)\n', `  Object.setPrototypeOf(router, this)\n  router.${name} = Router.prototype.${name}Moved\n`],
  ],
});

const integration = defineIntegration({
  name: 'express',
  title: 'Express',
  subpath: './express',
  labels: ['method', 'route'],
  packages: { [PACKAGE]: '>=4.6.0 <6' },
  internals: [
    {
      package: PACKAGE,
      of: 'router',
      name: 'Router#use',
      why: 'to know the path each layer was mounted at: Express keeps no mount templates (router 2.3+ keeps layer.rawPath, which is read where there)',
      check: ({ routerProto }) => typeof routerProto.use === 'function',
      double: ownMethod('use'),
    },
    {
      package: PACKAGE,
      of: 'router',
      name: 'Layer#handle_request (4), Layer#handleRequest (router 2, Express 5)',
      why: "where a request enters each mount and route; Express publishes no hook there (router 2.3's express.router.request channel carries the router-local path alone)",
      check: ({ layerProto }) => typeof layerProto.handle_request === 'function' || typeof layerProto.handleRequest === 'function',
      double: { edits: ['index.js', 'lib/layer.js', 'lib/route.js'].map((f) => [`router/${f}`, 'handleRequest', 'handleRequestMoved']) },
    },
    {
      package: PACKAGE,
      of: 'router',
      name: 'Router#process_params(layer, called, req, res, done) (4), Router#param (5)',
      why: "so router.param callbacks of a matched route run in its scope: they run before the route's layer",
      check: ({ routerProto }) => (typeof routerProto.process_params === 'function' ? routerProto.process_params.length === 5 : typeof routerProto.param === 'function'),
      double: ownMethod('param'),
    },
    {
      package: PACKAGE,
      of: 'express',
      name: 'express.application.handle',
      why: 'where every request of every app starts; Express has no app-wide hook that runs first',
      register: true,
      check: (express) => typeof express.application.handle === 'function',
      double: {
        edits: [
          ['express/lib/application.js', 'app.handle = function handle(', 'app.handleMoved = function handle('],
          ['express/lib/application.js', 'fn.handle(req, res', 'fn.handleMoved(req, res'],
          ['express/lib/application.js', '!fn.handle ||', '!fn.handleMoved ||'],
          ['express/lib/express.js', 'app.handle(req, res, next)', 'app.handleMoved(req, res, next)'],
        ],
      },
    },
  ],
  reach: [{ kind: 'module', package: PACKAGE, patch: (express, context) => apps().patchExpress(express, context), unpatch: () => apps().unpatchExpress() }],
});

module.exports = integration;
