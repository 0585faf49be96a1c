'use strict';

// Next.js 15 and 16 (`next start`) (next/integration.js), labelled without OpenTelemetry by
// customlabels/register alone (Next.js has no place for a line of ours that
// runs around a request; docs/integrations/next.md):
//
//   method  every request, from NextNodeServer#handleRequest on (from the
//           HTTP integration's scope on, where it opened one: then
//           handleRequest adds `route` (unmatched) on top of it)
//   route   the route pattern ('/blog/[slug]', '/api/items/[id]'), never the
//           raw path:
//           - app router (pages, route handlers, server actions): from the
//             work store Next.js opens for the route (workAsyncStorage.run;
//             its `route` is the pattern without /page or /route), so the
//             render, the handler and the action run under it;
//           - pages router API routes: the matched definition's pathname
//             (NextNodeServer#handleApiRequest).
//   plus register's process labels and headers.
// What runs before the route is known (Next's routing, middleware) runs
// under `method` and `route` (unmatched). These are Next.js internals: each
// is checked before it is patched; where one is missing, requests go on
// labelled with what is found, with one warning.

const { withLabels } = require('../../index');
const { Patcher } = require('../kit/patcher');
const { RouteLabels } = require('../kit/route-labels');
const { requestLabels, runLabelled, amendUnmatched } = require('../kit/request-labels');
const { requestScopeOf, follow } = require('../kit/request-scope');

const patcher = new Patcher('next');
const routes = new RouteLabels();

// The scope the HTTP integration opened for the request among `args` (a
// NodeNextRequest wraps Node.js's as _req; Next.js 16 passes it to the work
// store's run), whose events (its body, read by a route handler) then follow
// the route scope (kit/request-scope.js). Next.js 15 passes none there: its
// route handlers' bodies are read under (unmatched).
function followRequest(args) {
  for (const a of args) {
    const scope = a !== null && typeof a === 'object' ? requestScopeOf(a._req !== undefined ? a._req : a) : undefined;
    if (scope !== undefined) {
      follow(scope);
      return;
    }
  }
}

// The app router's work store (work-async-storage.external.js exports; the
// storage is a getter export, so its instance's run() is wrapped). The
// first store it is given says whether stores name their route.
function patchWorkStore(mod, context) {
  const storage = mod !== null && typeof mod === 'object' ? mod.workAsyncStorage : undefined;
  if (storage === null || typeof storage !== 'object' || typeof storage.run !== 'function') return;
  let known; // whether stores name their route (store.route)
  patcher.wrap(storage, 'run', (run) =>
    function runLabelledRoute(store, fn, ...args) {
      if (store === null || typeof store !== 'object') return run.call(this, store, fn, ...args);
      known ??= context.integration.guard('work store', store, context);
      const route = known ? store.route : undefined;
      if (typeof route !== 'string' || route === '') return run.call(this, store, fn, ...args);
      return withLabels(routes.of(route), () => {
        followRequest(args);
        return run.call(this, store, fn, ...args);
      });
    },
  );
}

// NextNodeServer (next-server.js's default export, a getter): its
// prototype, before getRequestHandler() binds handleRequest.
function patchServer(mod, context) {
  const NextNodeServer = mod !== null && typeof mod === 'object' ? mod.default : undefined;
  if (typeof NextNodeServer !== 'function') return;
  const proto = NextNodeServer.prototype;
  if (!context.integration.guard('server', proto, context)) return;
  const build = requestLabels({}, context.config);
  patcher.wrap(proto, 'handleRequest', (handleRequest) =>
    function handleRequestLabelled(req, res, parsedUrl) {
      if (req === null || typeof req !== 'object' || typeof req.method !== 'string') return handleRequest.apply(this, arguments);
      // Node.js's request (a NodeNextRequest wraps it as _req): on top of
      // the HTTP integration's scope for it, (unmatched) alone.
      const scope = requestScopeOf(req._req !== undefined ? req._req : req);
      if (scope !== undefined) {
        amendUnmatched(scope);
        return handleRequest.apply(this, arguments);
      }
      return runLabelled(build, req.method, undefined, req, () => handleRequest.apply(this, arguments));
    },
  );
  patcher.wrap(proto, 'handleApiRequest', (handleApiRequest) =>
    function handleApiRequestLabelled(req, res, query, match) {
      const route = match && match.definition ? match.definition.pathname : undefined;
      if (typeof route !== 'string' || route === '') return handleApiRequest.apply(this, arguments);
      const args = arguments;
      return withLabels(routes.of(route), () => {
        followRequest([req]);
        return handleApiRequest.apply(this, args);
      });
    },
  );
}

const unpatchNext = () => patcher.unwrapAll();

module.exports = { patchWorkStore, patchServer, unpatchNext };
