'use strict';

// Next.js 15 and 16 (`next start`), labelled without OpenTelemetry, by
// customlabels/register (which calls these when Next.js loads them; there
// is no line to add by hand):
//
//   method  every request, from NextNodeServer#handleRequest on
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
// under `method` and `route` (unmatched).
//
// These are Next.js internals (the same in 15.5 and 16.4): where one is
// missing, requests go on labelled with what is found, never failing.

const { withLabels } = require('../index');
const { requestLabels, runLabelled } = require('./request-labels');

const kPatched = Symbol.for('customlabels.next.patched');
const MAX_CACHED = 256;
const routes = new Map();

// One frozen { route } per pattern: withLabels finds its set by identity.
function routeLabels(route) {
  let labels = routes.get(route);
  if (labels === undefined) {
    labels = Object.freeze({ route });
    if (routes.size < MAX_CACHED) routes.set(route, labels);
  }
  return labels;
}

function patchOnce(target, name, wrap) {
  if (target === null || typeof target !== 'object' || typeof target[name] !== 'function') return false;
  const flag = Symbol.for(`customlabels.next.patched.${name}`);
  if (Object.prototype.hasOwnProperty.call(target, flag)) return false;
  Object.defineProperty(target, flag, { value: true });
  target[name] = wrap(target[name]);
  return true;
}

// The app router's work store (work-async-storage.external.js exports).
function labelWorkStore(mod) {
  const storage = mod && mod.workAsyncStorage;
  patchOnce(storage, 'run', (run) =>
    function runLabelledRoute(store, fn, ...args) {
      const route = store !== null && typeof store === 'object' ? store.route : undefined;
      if (typeof route !== 'string' || route === '') return run.call(this, store, fn, ...args);
      return withLabels(routeLabels(route), () => run.call(this, store, fn, ...args));
    },
  );
}

// NextNodeServer (next-server.js's default export).
function labelServer(NextNodeServer, options = {}) {
  const proto = NextNodeServer && NextNodeServer.prototype;
  if (proto === undefined || proto === null || Object.prototype.hasOwnProperty.call(proto, kPatched)) return;
  Object.defineProperty(proto, kPatched, { value: true });
  const build = requestLabels(options);
  patchOnce(proto, 'handleRequest', (handleRequest) =>
    function handleRequestLabelled(req, res, parsedUrl) {
      if (req === null || typeof req !== 'object' || typeof req.method !== 'string') return handleRequest.call(this, req, res, parsedUrl);
      return runLabelled(build, req.method, undefined, req, () => handleRequest.call(this, req, res, parsedUrl));
    },
  );
  patchOnce(proto, 'handleApiRequest', (handleApiRequest) =>
    function handleApiRequestLabelled(req, res, query, match) {
      const route = match && match.definition ? match.definition.pathname : undefined;
      if (typeof route !== 'string' || route === '') return handleApiRequest.call(this, req, res, query, match);
      return withLabels(routeLabels(route), () => handleApiRequest.call(this, req, res, query, match));
    },
  );
}

module.exports = { labelWorkStore, labelServer };
