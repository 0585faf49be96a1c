'use strict';

// customlabels/register and Koa: every app of Koa's Application class runs
// the labels middleware first, added when the app makes its request handler
// (app.callback(), which app.listen() calls), and is handed register's
// configuration. An app with a labels() middleware of its own
// (kit/takeover.js) is labelled by that one, which merges it.

const { Patcher } = require('../kit/patcher');
const { requestLabels, runLabelled } = require('../kit/request-labels');
const { isHandWired, handOver } = require('../kit/takeover');
const { hasInternals } = require('../kit/versions');
const { kActive, patchRouter, routerClassOf, unpatchRoutes } = require('./routes');

const patcher = new Patcher('koa-apps');
const kAdded = Symbol('customlabels.koa.added');

function labelApps(integration, koa, { version, config: registered }) {
  const Application = typeof koa === 'function' ? koa : koa !== null && typeof koa === 'object' && typeof koa.default === 'function' ? koa.default : undefined;
  if (Application === undefined) return;
  const ok = hasInternals(integration, 'koa', version, { 'Application#callback': () => typeof Application.prototype.callback === 'function' });
  if (!ok) return;
  const build = requestLabels({}, registered);
  function registeredMiddleware(ctx, next) {
    if (isHandWired(ctx.app)) return next();
    ctx[kActive] = true;
    return runLabelled(build, ctx.method, undefined, ctx, next);
  }
  patcher.wrap(Application.prototype, 'callback', (callback) =>
    function callback_() {
      if (this[kAdded] !== true && Array.isArray(this.middleware)) {
        this[kAdded] = true;
        handOver(this, registered);
        this.middleware.unshift(registeredMiddleware);
      }
      return callback.apply(this, arguments);
    },
  );
}

// The routers of a router module (`pkg`: @koa/router or koa-router).
function labelRouters(integration, pkg, mod, { version }) {
  const Router = routerClassOf(mod);
  if (Router === undefined) return; // another file of the package
  if (!hasInternals(integration, pkg, version, { 'Router#register': () => typeof Router.prototype.register === 'function' })) return;
  patchRouter(Router.prototype);
}

function unpatchApps() {
  patcher.unwrapAll();
  unpatchRoutes();
}

module.exports = { labelApps, labelRouters, unpatchApps };
