'use strict';

// Express middleware (`customlabels/express`), Express 4.6+ and 5:
//
//   const { labels } = require('customlabels/express');
//   app.use(labels({ labels: (req) => ({ tenant: req.get('x-tenant') }) }));
//
// The middleware labels the request with `method` (and `route` UNMATCHED);
// once a route matches, its handlers, and everything they cause, see `route`
// set to the full route template ('/api/users/:id'; express/router.js). The
// Express that resolves from here is patched when this module loads; call
// instrument(require('express')) early for another copy (a router built
// before shows its mounts as '*'). An Express outside the supported range
// runs unlabelled, with one warning.

const errors = require('../../core/errors');
const { buildsPerApp } = require('../kit/request-labels');
const { markHandWired, ownMiddleware, registeredOf } = require('../kit/takeover');
const { byHand } = require('../kit/integration');
const { versionOfExports, versionOfFile, versionOfValue } = require('../kit/versions');
const integration = require('./integration');
const { labelRequest } = require('./requests');
const { tracking } = require('./router');
const { patchRouters, routerOf } = require('./apps');

const PACKAGE = 'express';
const [reach] = integration.reach;

// Patches an express module (require('express')); idempotent. Returns
// whether it is patched (false: a version this does not support, with one
// warning).
function instrument(express) {
  if (typeof express !== 'function' || typeof express.Router !== 'function') {
    throw errors.invalidOption('', "the express module (require('express'))", express);
  }
  return integration.apply(reach, express, { version: versionOfExports(express, PACKAGE), config: byHand() }) === true;
}

// The Express you installed, if it resolves from here (a flat node_modules).
function instrumentInstalled() {
  let file;
  let express;
  try {
    file = require.resolve(PACKAGE);
    express = require(PACKAGE);
  } catch {
    return;
  }
  if (typeof express !== 'function' || typeof express.Router !== 'function') return;
  integration.apply(reach, express, { version: versionOfFile(file, PACKAGE), file, config: byHand() });
}

// On first use in an app whose express did not resolve from here: patch
// the prototypes its router uses (mounts made before stay '*'). False where
// this Express is not supported.
function instrumentApp(app) {
  const router = routerOf(app);
  const layer = router && Array.isArray(router.stack) ? router.stack[0] : undefined;
  if (layer === undefined) return true;
  const routerProto = Object.getPrototypeOf(router);
  const layerProto = Object.getPrototypeOf(layer);
  // Express 4: the router's prototype is express.Router; 5: router's class.
  const version = versionOfValue(routerProto, PACKAGE) ?? versionOfValue(routerProto.constructor, PACKAGE);
  return integration.supports(PACKAGE, version) && patchRouters({ routerProto, layerProto }, { integration, version, config: byHand() });
}

// (Under customlabels/register, the app's process and header labels join
// these: register handed the app its configuration.)
function labels(options = {}) {
  const buildFor = buildsPerApp(options, registeredOf);
  const withRoute = options.route !== false;
  tracking.on = tracking.on || withRoute;
  const apps = new WeakMap(); // app -> whether its Express is supported
  return ownMiddleware(function customlabels(req, res, next) {
    const app = req.app;
    if (app !== undefined) {
      let supported = apps.get(app);
      if (supported === undefined) {
        // Mounted at the app's root, it labels all the app's requests;
        // on a path or a route (req.baseUrl, req.route), register
        // labels the rest (express/apps.js).
        if (!req.baseUrl && req.route === undefined) markHandWired(app);
        supported = !withRoute || instrumentApp(app);
        apps.set(app, supported);
      }
      if (!supported) return next();
    }
    return labelRequest(buildFor(app), withRoute, req, next);
  });
}

instrumentInstalled();

module.exports = { labels, instrument };
