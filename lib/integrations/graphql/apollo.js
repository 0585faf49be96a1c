'use strict';

// Apollo Server 4 and 5 (customlabels/graphql's apolloPlugin() and
// instrument()). Its plugin hooks (requestDidStart, parsingDidStart,
// didResolveOperation, willResolveField...) are callbacks that wrap nothing,
// so apolloPlugin() alone cannot open a scope. This module therefore wraps,
// once per ApolloServer class, executeHTTPGraphQLRequest (what every HTTP
// integration calls) and executeOperation; the wrappers label only servers
// that have an apolloPlugin() in their plugins and pass everything else
// through untouched (graphql/index.js says more).

const errors = require('../../core/errors');
const { Patcher } = require('../kit/patcher');
const { byHand } = require('../kit/integration');
const { versionOfExports, versionOfValue, wasUnsupported } = require('../kit/versions');
const { UNKNOWN_OP, operationOfParams, batchOperation, rememberPersisted, persistedHash } = require('./outline');
const { createLabeller, headersOf, warn } = require('./labeller');

// Shared by every copy of this module: a copy's wrappers find a plugin made
// by another copy and call its own scope function.
const kApollo = Symbol.for('customlabels.graphql.apollo');
const PACKAGE = '@apollo/server';
const patcher = new Patcher('graphql-apollo');
const kServerScope = Symbol('customlabels.graphql.serverScope');

// A search parameter given once, null if absent; undefined if given more
// than once (Apollo rejects the request).
function searchParam(params, name) {
  const all = params.getAll(name);
  return all.length === 0 ? null : all.length === 1 ? all[0] : undefined;
}

// The operation of an HTTPGraphQLRequest, read as Apollo's runHttpQuery
// reads it.
function operationOfHttp(request) {
  if (typeof request !== 'object' || request === null) return UNKNOWN_OP;
  if (request.method === 'GET') {
    if (typeof request.search !== 'string' || request.search === '') return UNKNOWN_OP;
    const params = new URLSearchParams(request.search);
    const query = searchParam(params, 'query');
    const operationName = searchParam(params, 'operationName');
    const raw = searchParam(params, 'extensions');
    // What Apollo rejects runs under (unknown): a parameter given twice,
    // extensions that are not JSON.
    if (query === undefined || operationName === undefined || raw === undefined) return UNKNOWN_OP;
    let extensions = null;
    if (raw !== null) {
      try {
        extensions = JSON.parse(raw);
      } catch {
        return UNKNOWN_OP;
      }
    }
    return operationOfParams(query, operationName, extensions);
  }
  const { body } = request;
  if (Array.isArray(body)) return batchOperation(body);
  if (typeof body !== 'object' || body === null) return UNKNOWN_OP;
  return operationOfParams(body.query, body.operationName, body.extensions);
}

// The prototype of `ApolloServer` (a class or a server) that defines
// `method` (a subclass shares its base's), or null.
function definingProto(start, method) {
  let proto = start;
  while (proto !== null && !Object.prototype.hasOwnProperty.call(proto, method)) proto = Object.getPrototypeOf(proto);
  return proto;
}

// The customlabels plugin of a server, or null. Looked up per request until
// the server has started (plugins can be added until then), then kept.
// (A server without the internals this reads, server.internals.plugins, runs
// unlabelled, with one warning: `integration`'s guard.)
function scopeOf(server, integration) {
  const kept = server[kServerScope];
  if (kept !== undefined) return kept;
  const internals = server.internals;
  if (typeof internals !== 'object' || internals === null || !Array.isArray(internals.plugins)) {
    const base = definingProto(Object.getPrototypeOf(server), 'executeOperation');
    integration.guard('apollo server', server, { version: base === null ? null : versionOfValue(base.constructor, PACKAGE) });
    return null;
  }
  let found = registered;
  for (const p of internals.plugins) {
    if (typeof p === 'object' && p !== null && p[kApollo] !== undefined) {
      found = p[kApollo];
      break;
    }
  }
  const phase = internals.state && internals.state.phase;
  if (phase === 'started' && Object.isExtensible(server)) Object.defineProperty(server, kServerScope, { value: found });
  return found;
}

function apolloClassOf(apollo) {
  // (Its methods are the guard's to check: a class without them is one
  // warning, not silence.)
  if (typeof apollo === 'function' && apollo.prototype !== null && typeof apollo.prototype === 'object') return apollo;
  if (typeof apollo === 'object' && apollo !== null) {
    if (typeof apollo.ApolloServer === 'function') return apolloClassOf(apollo.ApolloServer);
    if (typeof apollo.default === 'object' && apollo.default !== null) return apolloClassOf(apollo.default);
  }
  return null;
}

// Wraps the executeHTTPGraphQLRequest and executeOperation of an
// @apollo/server module's ApolloServer class (or of the class itself), once
// and for every copy of this module; under register, servers without an
// apolloPlugin() of their own run through register's scope. Whether the
// class is patched.
function patchApollo(apollo, context) {
  const { integration } = context;
  const ApolloServer = apolloClassOf(apollo);
  if (ApolloServer === null || !integration.guard('apollo', ApolloServer, context)) return false;
  patcher.wrap(definingProto(ApolloServer.prototype, 'executeHTTPGraphQLRequest'), 'executeHTTPGraphQLRequest', (executeHTTP) =>
    function executeHTTPGraphQLRequest(args) {
      const scope = scopeOf(this, integration);
      if (scope === null) return executeHTTP.call(this, args);
      return scope.http(this, args, () => executeHTTP.call(this, args));
    },
  );
  patcher.wrap(definingProto(ApolloServer.prototype, 'executeOperation'), 'executeOperation', (executeOperation) =>
    function executeOperation_(...args) {
      const scope = scopeOf(this, integration);
      if (scope === null) return executeOperation.apply(this, args);
      return scope.operation(this, args[0], () => executeOperation.apply(this, args));
    },
  );
  if (context.config.byHand !== true && registered === null) registered = registeredScope(integration);
  return true;
}

// The app's own call: an @apollo/server module (CommonJS exports or ESM
// namespace) or its ApolloServer class, patched through `integration`
// (customlabels/graphql's descriptor); idempotent. Returns whether the
// class is patched (false: a version this does not support, with one
// warning).
// Whether `Class` looks like ApolloServer: one of the methods patched on
// its prototype chain (the guard checks that both are).
const looksLikeApollo = (Class) => Class !== null && ['executeHTTPGraphQLRequest', 'executeOperation'].some((m) => definingProto(Class.prototype, m) !== null);

function instrument(integration, apollo) {
  if (!looksLikeApollo(apolloClassOf(apollo))) {
    throw errors.invalidOption('', "the @apollo/server module (require('@apollo/server')) or its ApolloServer class", apollo);
  }
  return integration.apply(integration.reach[0], apollo, { version: versionOfExports(apollo, PACKAGE), config: byHand() }) === true;
}

// Instruments the CommonJS @apollo/server that resolves from here, if it
// is loaded already (this module never loads a framework itself).
function instrumentLoaded(integration) {
  let file;
  try {
    file = require.resolve('@apollo/server');
  } catch {
    return false;
  }
  const loaded = require.cache[file];
  if (loaded === undefined || apolloClassOf(loaded.exports) === null) return false;
  instrument(integration, loaded.exports);
  return true;
}

// What a server's wrapped methods run through: { http, operation }, each
// calling reached() first.
function scopeFor(labeller, reached) {
  return {
    http(server, args, fn) {
      reached();
      if (!labeller.active) return fn();
      const request = args === undefined || args === null ? undefined : args.httpGraphQLRequest;
      let op;
      try {
        op = operationOfHttp(request);
      } catch {
        op = UNKNOWN_OP;
      }
      return labeller.run(op, request, headersOf(request), fn);
    },
    operation(server, request, fn) {
      reached();
      if (!labeller.active) return fn();
      let op;
      try {
        op = typeof request === 'object' && request !== null ? operationOfParams(request.query, request.operationName, request.extensions, true) : UNKNOWN_OP;
      } catch {
        op = UNKNOWN_OP;
      }
      const http = typeof request === 'object' && request !== null ? request.http : undefined;
      return labeller.run(op, request, headersOf(http), fn);
    },
  };
}

// The text behind a persisted query's hash (verified by Apollo, or found
// in its cache), for the next request that sends the hash alone: a
// listener only for requests that send a hash (Apollo calls no hook of the
// plugin for the others).
const listener = Object.freeze({
  async didResolveSource(requestContext) {
    const { metrics } = requestContext;
    if (metrics && (metrics.persistedQueryHit || metrics.persistedQueryRegister)) {
      rememberPersisted(requestContext.queryHash, requestContext.source);
    }
  },
});
const persistedListener = (request) => (request && persistedHash(request.extensions) !== undefined ? listener : undefined);

// customlabels/register: servers without an apolloPlugin() of their own
// run through this scope (patchApollo), not unlabelled, and are given the
// persisted-query listener at their first request.
let registered = null;
const kListening = Symbol('customlabels.graphql.listening');
const registeredPlugin = Object.freeze({
  async requestDidStart({ request }) {
    return persistedListener(request);
  },
});

function registeredScope(integration) {
  const scope = scopeFor(createLabeller({}, integration), () => {});
  const listen = (server) => {
    const plugins = server.internals && server.internals.plugins;
    if (server[kListening] !== true && Array.isArray(plugins) && Object.isExtensible(server)) {
      server[kListening] = true;
      plugins.push(registeredPlugin);
    }
  };
  return {
    http(server, args, fn) {
      listen(server);
      return scope.http(server, args, fn);
    },
    operation(server, request, fn) {
      listen(server);
      return scope.operation(server, request, fn);
    },
  };
}

// (`integration`: customlabels/graphql's descriptor.)
function apolloPlugin(options, integration) {
  const labeller = createLabeller(options, integration);
  let reached = false;
  const scope = scopeFor(labeller, () => {
    reached = true;
  });
  instrumentLoaded(integration);
  const plugin = {
    // Before the first request. No CommonJS @apollo/server loaded: the app
    // uses the ESM build (a dual package: a class the CommonJS side never
    // sees), which it has loaded already, so importing it costs nothing.
    async serverWillStart() {
      if (instrumentLoaded(integration)) return;
      try {
        instrument(integration, await import('@apollo/server'));
      } catch {
        // Not resolvable from here: the warning at the first request says
        // what to do.
      }
    },
    // A listener only for requests that send a persisted query's hash:
    // Apollo calls no hook of this plugin for the others.
    async requestDidStart({ request }) {
      // (An @apollo/server found unsupported has said so already.)
      if (!reached && !wasUnsupported(PACKAGE)) {
        warn(
          'apollo',
          "an ApolloServer with apolloPlugin() runs requests unlabelled: its class was not instrumented (call instrument(require('@apollo/server')), or instrument(await import('@apollo/server')) for the ESM build, before its first request)",
        );
      }
      return persistedListener(request);
    },
  };
  Object.defineProperty(plugin, kApollo, { value: scope });
  return plugin;
}

function unpatchApollo() {
  patcher.unwrapAll();
  registered = null;
}

module.exports = { apolloPlugin, instrument, patchApollo, unpatchApollo, definingProto };
