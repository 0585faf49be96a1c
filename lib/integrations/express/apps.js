'use strict';

// customlabels/register and Express (express/integration.js): the
// Router/Layer patches (express/router.js) on the express the app loads, and
// every app's handle() runs each request under the request's labels, from
// app.handle on, unless the app has a labels() middleware of its own, which
// then labels it, merging register's configuration (handed to the app at
// its first request). A mounted sub-app's requests are labelled by the app
// they came through.

const { Patcher } = require('../kit/patcher');
const { requestLabels } = require('../kit/request-labels');
const { isHandWired, handOver } = require('../kit/takeover');
const { hasInternals } = require('../kit/versions');
const { prototypesOf, internalsOf, patchPrototypes, unpatchRouter, isActive, tracking } = require('./router');
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
      return labelRequest(build, true, req, () => handle.call(this, req, res, callback));
    },
  );
}

function unpatchApps() {
  patcher.unwrapAll();
  unpatchRouter();
}

module.exports = { labelApps, unpatchApps };
