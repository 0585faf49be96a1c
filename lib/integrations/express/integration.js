'use strict';

// customlabels/express in the table of integrations (lib/integrations/index.js).
// What register does with it is in express/apps.js, loaded when an app
// loads Express.

const { defineIntegration } = require('../kit/integration');

const PACKAGE = 'express';

const integration = defineIntegration({
  name: 'express',
  title: 'Express',
  subpath: './express',
  packages: { [PACKAGE]: '>=4.6.0 <6' },
  internals: [
    { package: PACKAGE, name: 'Router#use', why: 'to know the path each layer was mounted at: Express keeps no mount templates (router 2.3+ keeps layer.rawPath, which is read where there)' },
    { package: PACKAGE, name: 'Layer#handle_request (4), Layer#handleRequest (router 2, Express 5)', why: "where a request enters each mount and route; Express publishes no hook there (router 2.3's express.router.request channel carries the router-local path alone)" },
    { package: PACKAGE, name: 'Router#process_params (4), Router#param (5)', why: "so router.param callbacks of a matched route run in its scope: they run before the route's layer" },
    { package: PACKAGE, name: 'express.application.handle', why: 'register only: where every request of every app starts; Express has no app-wide hook that runs first' },
  ],
  reach: [{ kind: 'module', package: PACKAGE, patch: (express, context) => require('./apps').labelApps(integration, express, context) }],
  unpatch: () => require('./apps').unpatchApps(),
});

module.exports = integration;
