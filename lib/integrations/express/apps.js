'use strict';

// customlabels/register and Express (express/integration.js): the
// Router/Layer patches (express/router.js) on the express the app loads, and
// every app's handle() labels each request from app.handle on, unless the
// app has a labels() middleware of its own, which then labels it, merging
// register's configuration (handed to the app at its first request). A
// request the HTTP integration opened a scope for (kit/request-scope.js)
// gets `route` (unmatched) on top of that scope, and its routes' scopes
// after; one it did not (an app handed a request without a server) gets
// the whole of the request's labels here. A mounted sub-app's requests are
// labelled by the app they came through.

const { Patcher } = require('../kit/patcher');
const { requestLabels, amendUnmatched } = require('../kit/request-labels');
const { requestScopeOf } = require('../kit/request-scope');
const { isHandWired, handOver } = require('../kit/takeover');
const { hasInternals } = require('../kit/versions');
const { prototypesOf, internalsOf, patchPrototypes, unpatchRouter, isActive, tracking, stateOf } = require('./router');
const { labelRequest } = require('./requests');

const PACKAGE = 'express';
const patcher = new Patcher('express-apps');

function labelApps(integration, express, { version, config }) {
  if (typeof express !== 'function' || typeof express.Router !== 'function' || express.application === undefined) return;
  const { routerProto, layerProto } = prototypesOf(express);
  const ok = hasInternals(integration, PACKAGE, version, {
    ...internalsOf(routerProto, layerProto),
    'express.application.handle': () => typeof express.application.handle === 'function',
  });
  if (!ok) return;
  patchPrototypes(routerProto, layerProto);
  const build = requestLabels({}, config);
  tracking.on = true;
  patcher.wrap(express.application, 'handle', (handle) =>
    function handle_(req, res, callback) {
      handOver(this, config);
      if (isHandWired(this) || isActive(req)) return handle.call(this, req, res, callback);
      const scope = requestScopeOf(req);
      if (scope === undefined) return labelRequest(build, true, req, () => handle.call(this, req, res, callback));
      stateOf(req).active = true;
      amendUnmatched(scope);
      return handle.call(this, req, res, callback);
    },
  );
}

function unpatchApps() {
  patcher.unwrapAll();
  unpatchRouter();
}

module.exports = { labelApps, unpatchApps };
