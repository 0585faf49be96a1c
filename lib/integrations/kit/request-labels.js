'use strict';

// The labels the HTTP integrations publish per request, and their options:
//   method  the request method (GET, POST, ...)
//   route   the route template ('/users/:id'), never the raw path;
//           UNMATCHED when no route matched (404s); off with route: false
//   plus whatever options.labels(request) returns (tenant from a header...).
//   plus, where customlabels/register applies the integration, the process
//   labels and request headers its configuration names (CUSTOMLABELS_LABELS,
//   CUSTOMLABELS_HEADERS: `registered`, passed in), below all of the above.
//   An app with a middleware of its own under register is handed register's
//   configuration (kit/takeover.js), which that middleware passes here.
// Short keys and values that repeat per route keep the sets small enough
// for what profilers keep and cheap to build (repeated sets are interned).

const { types } = require('node:util');
const { withLabels } = require('../../index');
const { amend, unmatched, UNMATCHED_ROUTE } = require('./request-scope');
const errors = require('../../core/errors');
const { warnOnce } = require('../../core/warnings');
const { cutValue } = require('./limits');
const { BoundedTrie } = require('./cache');
const { capValue, OTHER } = require('./cardinality');

const UNMATCHED = UNMATCHED_ROUTE.route;

// The value of header `name` (lower case) of a request of any of the
// frameworks (Node's IncomingMessage headers, Fetch Headers, Hono's
// context), cut to what readers keep; undefined if absent.
function headerOf(request, name) {
  let headers = request.headers;
  if (headers === undefined && request.req !== undefined) headers = request.req.raw !== undefined ? request.req.raw.headers : request.req.headers;
  if (headers === undefined || headers === null) return undefined;
  let v = typeof headers.get === 'function' ? headers.get(name) : headers[name];
  if (Array.isArray(v)) v = v[0];
  return typeof v === 'string' ? cutValue(v) : undefined;
}

// What register adds to every request's labels, from its configuration
// (`registered`: { labels, headers }, or null by hand): `base`, the process
// labels (a frozen object, or null), and the header labels, each value cut,
// OTHER where it fails its allow-pattern, and capped (kit/cardinality.js):
// fromHeaders(out, request) adds them to `out`; headerParts(parts, from,
// request) puts their values (undefined where absent) into parts[from..)
// and returns their count; headerLabels names them (both functions null
// where no header is configured).
function registeredParts(registered) {
  if (registered === null || registered === undefined) return { base: null, fromHeaders: null, headerParts: null, headerLabels: [] };
  const base = Object.keys(registered.labels).length > 0 ? Object.freeze({ ...registered.labels }) : null;
  const pairs = registered.headers;
  if (pairs.length === 0) return { base, fromHeaders: null, headerParts: null, headerLabels: [] };
  const valueOf = (request, i) => {
    const [header, label, allow] = pairs[i];
    const v = headerOf(request, header);
    if (v === undefined) return undefined;
    return allow !== null && allow !== undefined && !allow.test(v) ? OTHER : capValue(label, v);
  };
  const fromHeaders = (out, request) => {
    for (let i = 0; i < pairs.length; i++) {
      const v = valueOf(request, i);
      if (v !== undefined) out[pairs[i][1]] = v;
    }
    return out;
  };
  // The header labels' values of `request` (undefined: absent) into
  // parts[from..); their count.
  const headerParts = (parts, from, request) => {
    for (let i = 0; i < pairs.length; i++) parts[from + i] = valueOf(request, i);
    return pairs.length;
  };
  return { base, fromHeaders, headerParts, headerLabels: pairs.map((pair) => pair[1]) };
}

// The labels register's configuration gives work that is not a request of
// an HTTP framework (a connection, a message) but comes with one's headers:
// labelsOf(request) is its process labels and its header labels, a new
// object (the process labels alone, frozen, where no header is
// configured).
function configuredLabels(registered) {
  const { base, fromHeaders } = registeredParts(registered);
  const frozen = base ?? Object.freeze({});
  if (fromHeaders === null) return () => frozen;
  return (request) => fromHeaders({ ...frozen }, request);
}

// Validates the options once and returns build(method, route, request).
// `registered`: register's configuration, or null.
function requestLabels(options = {}, registered = null) {
  if (typeof options !== 'object' || options === null) throw errors.invalidOption('', 'an object', options);
  const { labels: extra, route = true } = options;
  if (extra !== undefined && typeof extra !== 'function') throw errors.invalidOption('labels', 'a function', extra);
  if (typeof route !== 'boolean') throw errors.invalidOption('route', 'a boolean', route);
  const { base, fromHeaders, headerParts, headerLabels } = registeredParts(registered);
  const own = (method, template) => {
    const out = base === null ? {} : { ...base };
    out.method = method;
    if (route) out.route = template === undefined ? UNMATCHED : template;
    return out;
  };
  if (extra === undefined) {
    // The labels depend on method, template and the header labels' values
    // alone: one frozen object per combination, which withLabels finds its
    // set for by identity (no reading, encoding or interning per request).
    // Methods and templates come from the HTTP parser and the app's routes;
    // header values from clients, each capped (kit/cardinality.js); the
    // bound (kit/cache.js), above the default cap of one label's values
    // (2,000), guards against an app that builds routes at run time and
    // clients that send many values. (`parts` is filled and read with no
    // user code between: header reads, the allow-pattern and the cap.)
    const cache = new BoundedTrie(4096);
    const parts = [];
    return function build(method, template, request) {
      parts[0] = method;
      parts[1] = route ? template : undefined;
      const n = headerParts === null ? 2 : 2 + headerParts(parts, 2, request);
      return cache.get(parts, n, () => {
        const out = own(method, template);
        for (let i = 2; i < n; i++) if (parts[i] !== undefined) out[headerLabels[i - 2]] = parts[i];
        return Object.freeze(out);
      });
    };
  }
  return function build(method, template, request) {
    const out = own(method, template);
    if (fromHeaders !== null) fromHeaders(out, request);
    const more = extra(request);
    if (more === undefined || more === null) return out;
    if (typeof more !== 'object') throw errors.invalidOption('labels', 'a function returning an object', more);
    if (types.isMap(more)) {
      for (const [k, v] of more) out[k] = v;
      return out;
    }
    return Object.assign(out, more);
  };
}

// fn() under `labels`; if withLabels rejects them (it throws before fn
// runs), rejected(err) instead. Errors of fn itself pass through.
function withLabelsOr(labels, fn, rejected) {
  let entered = false;
  try {
    return withLabels(labels, () => {
      entered = true;
      return fn();
    });
  } catch (err) {
    if (entered) throw err;
    return rejected(err);
  }
}

// Runs fn() under the request's labels. Labels that cannot be built or
// published (options.labels threw, or returned an invalid value) never fail
// the request: a warning (once per thread) and fn() runs unlabelled. An
// error thrown by fn itself passes through. `fallback` (default fn) is what
// runs instead.
function runLabelled(build, method, route, request, fn, fallback = fn) {
  const rejected = (err) => {
    rejectedWarning(err);
    return fallback();
  };
  let labels;
  try {
    labels = build(method, route, request);
  } catch (err) {
    return rejected(err);
  }
  return withLabelsOr(labels, fn, rejected);
}

const rejectedWarning = (err) =>
  warnOnce('request-labels', `customlabels: request labels not published (${err && err.message}); requests run unlabelled`, 'CUSTOMLABELS_REQUEST_LABELS');

// `labels` (the route a framework found, its (unmatched) before one) on top
// of `scope`, the one the HTTP integration opened for the request
// (kit/request-scope.js), for the rest of the request's work from here, in
// that scope, not in a second one. Labels that cannot be published cost one
// warning, as runLabelled's do, and the request goes on as it was.
function amendRequest(scope, labels) {
  try {
    amend(scope, labels);
  } catch (err) {
    rejectedWarning(err);
  }
}

// `route` (unmatched) on top of `scope` (kit/request-scope.js's
// unmatched()), with the same warning.
function amendUnmatched(scope) {
  try {
    unmatched(scope);
  } catch (err) {
    rejectedWarning(err);
  }
}

// The same with the labels `build` (requestLabels') makes, where making
// them may throw (an app's options.labels).
function amendWith(scope, build, method, route, request) {
  let labels;
  try {
    labels = build(method, route, request);
  } catch (err) {
    rejectedWarning(err);
    return;
  }
  amendRequest(scope, labels);
}

// One build per app for a middleware that may serve several apps, each
// maybe handed register's configuration: buildFor(app).
function buildsPerApp(options, registeredOf) {
  const own = requestLabels(options);
  const builds = new WeakMap();
  let lastApp = null; // most middleware serves one app
  let lastBuild = own;
  return function buildFor(app) {
    if (app === lastApp) return lastBuild;
    if (app === null || (typeof app !== 'object' && typeof app !== 'function')) return own; // an Express app is a function
    let build = builds.get(app);
    if (build === undefined) {
      const registered = registeredOf(app);
      build = registered === null ? own : requestLabels(options, registered);
      builds.set(app, build);
    }
    lastApp = app;
    lastBuild = build;
    return build;
  };
}

module.exports = { requestLabels, configuredLabels, buildsPerApp, runLabelled, amendRequest, amendUnmatched, amendWith, rejectedWarning, withLabelsOr, headerOf, UNMATCHED };
