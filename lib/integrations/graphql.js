'use strict';

// GraphQL operations, labelled (`customlabels/graphql`): Apollo Server 4 and
// 5, GraphQL Yoga 5, and any other envelop-based server.
//
//   new ApolloServer({ typeDefs, resolvers, plugins: [apolloPlugin()] })
//   createYoga({ schema, plugins: [yogaPlugin()] })
//
// Each GraphQL operation runs in one withLabels scope with
//   graphql.operation  the name of the operation that runs (the one
//                      `operationName` selects in a document of several);
//                      (anonymous) for an unnamed one
//   graphql.type       query, mutation or subscription
// merged over whatever is current (customlabels/express's method and route,
// a tenant...), never instead of it. The scope covers everything the server
// does for the operation: context creation, parsing, validation, execution,
// every resolver (sync, async, after timers, DataLoader batches scheduled
// from resolvers), error formatting and, on Apollo, the serialized result.
// What the server does after (writing the response) runs under the HTTP
// layer's labels alone, as does the next request on the connection.
//
// Why one scope around the operation rather than hooks per phase: the
// labels must be known before parsing starts, and a scope can only be
// opened around work, never switched on from a callback without leaking
// into the caller's continuation (AsyncLocalStorage#enterWith, which this
// module never uses). So the operation is read from the request before the
// server parses it: a lexer-level scan of the document's outline (below),
// cached by the query text, gives the operations it defines, and the one
// that runs is chosen as graphql-js's getOperationAST chooses it.
//
// Apollo Server. Its plugin hooks (requestDidStart, parsingDidStart,
// didResolveOperation, willResolveField...) are callbacks that wrap nothing,
// so apolloPlugin() alone cannot open a scope. This module therefore wraps,
// once per ApolloServer class, executeHTTPGraphQLRequest (what every HTTP
// integration calls: @as-integrations/express5, apollo4/express4,
// startStandaloneServer, Fastify, Lambda...) and executeOperation; the
// wrappers label only servers that have an apolloPlugin() in their plugins
// and pass everything else through untouched. The class patched is that of
// the @apollo/server already loaded from here (CommonJS: when apolloPlugin()
// is called or the server starts; an ESM app's, when the server starts);
// another copy needs instrument(require(...)) or instrument(await
// import(...)) before its first request. A server whose
// class was never patched logs one warning at its first request.
//
// Yoga. yogaPlugin()'s onParams hook wraps the params handler, which
// parses, validates, builds the context and executes or subscribes one
// operation: one scope per operation (per operation of a batched request
// too), with the final params (after persisted-operation plugins filled in
// the query). Other envelop-based servers: envelopPlugin()'s onParse,
// onValidate, onExecute and onSubscribe wrap each phase with setParseFn/
// setValidationFn/setExecuteFn/setSubscribeFn instead (three scopes; the
// document and operationName decide at validation and execution, the scan
// at parse; context creation runs outside them). For a
// subscription, each event's execution (run when the response pulls the
// next event, outside the operation's scope) is run in the scope again.
//
// Edge cases (what graphql.operation / graphql.type say):
// - a document whose outline cannot be read (unbalanced brackets, an
//   unterminated string, a character GraphQL does not allow, a type-system
//   definition, which is never executable): (unknown) / (unknown). A
//   document whose outline reads but has a syntax error inside it gets the
//   operation the outline names; its parse fails in that scope.
// - no operation selected (operationName names none, or several operations
//   and no operationName): (unknown) / (unknown), as the server then fails.
// - persisted queries sent as a hash without text (APQ): the operation the
//   hash stood for when this process last saw its text (Apollo tells the
//   plugin; in Yoga the persisted-operation plugins fill params.query before
//   the scope opens), else (persisted) / (unknown).
// - an Apollo batched HTTP request (allowBatchedHttpRequests): Apollo runs
//   the batch's operations inside one call and shares one context, so the
//   batch is one scope: (batch) / their common type, or (mixed). Yoga
//   batches are labelled per operation.
// - non-GraphQL work an Apollo server does at its endpoint (the landing
//   page, a request without a query): (unknown) / (unknown).
// Operation names come from clients: a name over 53 bytes (what the Parca
// agent keeps) is cut to 53; the keys are 17 and 12 bytes.
//
// Options (both plugins), validated when the plugin is made
// (TypeError, code ERR_CUSTOMLABELS_INVALID_OPTION):
//   operation: false  leaves graphql.operation out; type: false graphql.type
//   labels(request)   more labels of your own per operation, merged over
//                     these: request is { operation, type, headers, request }
//                     (headers: the request's, with get(name), undefined for an
//                     executeOperation call without http; request:
//                     Apollo's HTTPGraphQLRequest or GraphQLRequest, Yoga's
//                     Fetch Request). If it throws or returns something
//                     withLabels rejects, the operation runs with the
//                     GraphQL labels alone and the process gets one warning
//                     (CUSTOMLABELS_GRAPHQL_LABELS): labels never fail a
//                     request.
//
// Cost: without options.labels, an operation's labels are one frozen object
// per (name, type), which withLabels finds its set for by identity; the
// scan runs once per distinct query text (bounded cache).

const { withLabels } = require('../index');
const { withLabelsOr } = require('./request-labels');
const errors = require('../errors');
const { warnOnce } = require('../warnings');
const { PARCA } = require('./reader-limits');

const OPERATION = 'graphql.operation';
const TYPE = 'graphql.type';
const ANONYMOUS = '(anonymous)';
const UNKNOWN = '(unknown)';
const PERSISTED = '(persisted)';
const BATCH = '(batch)';
const MIXED = '(mixed)';
const { MAX_VALUE_BYTES } = PARCA;
// Distinct query texts whose outline is kept; the cache starts over when
// full (apps send a fixed set of documents; the bound guards against
// clients that send a new one every time).
const MAX_DOCUMENTS = 1024;
// Operations (name, type) kept as frozen label objects, per plugin.
const MAX_OPERATIONS = 4096;
// Query texts longer than this are not kept in the cache (UTF-16 units).
const MAX_CACHED_TEXT = 16384;

// --- the outline of a document -------------------------------------------

// An operation as labels name it: { operation, type } (frozen, interned, so
// plugins can key their label objects by it).
const operations = new Map();
function operationOfKind(name, type) {
  const key = `${type} ${name}`;
  let op = operations.get(key);
  if (op === undefined) {
    op = Object.freeze({ operation: name, type });
    // Names come from clients: start over when full (the edge operations
    // below are constants and need no entry).
    if (operations.size >= MAX_OPERATIONS) operations.clear();
    operations.set(key, op);
  }
  return op;
}
const UNKNOWN_OP = Object.freeze({ operation: UNKNOWN, type: UNKNOWN });
const PERSISTED_OP = Object.freeze({ operation: PERSISTED, type: UNKNOWN });

const labelName = (name) => (name === null ? ANONYMOUS : name.length > MAX_VALUE_BYTES ? name.slice(0, MAX_VALUE_BYTES) : name);

const isNameStart = (c) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
const isNameContinue = (c) => isNameStart(c) || (c >= 0x30 && c <= 0x39);

// States between top-level tokens.
const TOP = 0; // between definitions
const OPERATION_NAME = 1; // after query/mutation/subscription: a name may follow
const HEADER = 2; // in an operation's or fragment's header, before its '{'

// The operations a document defines, in order, as [{ name (null when
// unnamed), type }], or null when its outline cannot be read. A scan at the
// level of GraphQL's lexer: it skips whitespace, commas, comments, strings
// and block strings (so braces in them count for nothing), matches
// brackets, and reads only the names at the top level: a definition's
// keyword and an operation's name. Anything else a parser would check
// (selections, arguments, directives) is left to the parser.
function scanOperations(text) {
  const n = text.length;
  const ops = [];
  const closers = [];
  let state = TOP;
  let current = null;
  let definitions = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x2c || c === 0x0a || c === 0x0d || c === 0x09 || c === 0xfeff) {
      i++;
    } else if (c === 0x23) {
      // # comment, to the end of the line
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x0a || d === 0x0d) break;
        i++;
      }
    } else if (c === 0x22) {
      // Strings are values inside brackets, or, at the top level, a
      // definition's description (graphql >= 16.11 allows them on
      // operations and fragments).
      if (closers.length === 0 && state !== TOP) return null;
      if (text.charCodeAt(i + 1) === 0x22 && text.charCodeAt(i + 2) === 0x22) {
        i += 3;
        for (;;) {
          if (i >= n) return null;
          const d = text.charCodeAt(i);
          if (d === 0x5c && text.charCodeAt(i + 1) === 0x22 && text.charCodeAt(i + 2) === 0x22 && text.charCodeAt(i + 3) === 0x22) {
            i += 4; // \"""
          } else if (d === 0x22 && text.charCodeAt(i + 1) === 0x22 && text.charCodeAt(i + 2) === 0x22) {
            i += 3;
            break;
          } else {
            i++;
          }
        }
      } else {
        i++;
        for (;;) {
          if (i >= n) return null;
          const d = text.charCodeAt(i);
          if (d === 0x22) {
            i++;
            break;
          }
          if (d === 0x0a || d === 0x0d) return null;
          i += d === 0x5c ? 2 : 1;
        }
      }
    } else if (isNameStart(c)) {
      const start = i;
      i++;
      while (i < n && isNameContinue(text.charCodeAt(i))) i++;
      if (closers.length !== 0) continue;
      if (state === TOP) {
        const word = text.slice(start, i);
        definitions++;
        if (word === 'query' || word === 'mutation' || word === 'subscription') {
          current = { name: null, type: word };
          ops.push(current);
          state = OPERATION_NAME;
        } else if (word === 'fragment') {
          state = HEADER;
        } else {
          return null; // a type-system definition (never executable) or garbage
        }
      } else if (state === OPERATION_NAME) {
        current.name = text.slice(start, i);
        state = HEADER;
      }
      // HEADER: a directive's name, `on` and a type condition.
    } else if (c === 0x7b || c === 0x28 || c === 0x5b) {
      // { ( [
      if (closers.length === 0) {
        if (c === 0x7b) {
          if (state === TOP) {
            definitions++;
            ops.push({ name: null, type: 'query' }); // the { ... } shorthand
          }
          state = TOP; // back at the top once this selection set closes
        } else if (state === TOP) {
          return null;
        } else {
          state = HEADER; // variable definitions or arguments
        }
      }
      closers.push(c === 0x7b ? 0x7d : c === 0x28 ? 0x29 : 0x5d);
      i++;
    } else if (c === 0x7d || c === 0x29 || c === 0x5d) {
      if (closers.length === 0 || closers.pop() !== c) return null;
      i++;
    } else if (c === 0x2e) {
      // ... (a spread; a lone '.' is an error)
      if (text.charCodeAt(i + 1) !== 0x2e || text.charCodeAt(i + 2) !== 0x2e || closers.length === 0) return null;
      i += 3;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      // a number: a value, inside brackets only
      if (closers.length === 0) return null;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if ((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) i++;
        else break;
      }
    } else if (c === 0x21 || c === 0x24 || c === 0x26 || c === 0x3a || c === 0x3d || c === 0x40 || c === 0x7c) {
      // ! $ & : = @ |
      if (closers.length === 0 && state === TOP) return null;
      if (state === OPERATION_NAME && closers.length === 0) state = HEADER; // query @directive {
      i++;
    } else {
      return null;
    }
  }
  if (closers.length !== 0 || state !== TOP || definitions === 0) return null;
  return ops;
}

// The outline of one document, and the operation each operationName selects.
class Outline {
  constructor(ops) {
    // null: unreadable; else [{ name, op }], op the interned operation.
    this.ops = ops === null ? null : ops.map((o) => ({ name: o.name, op: operationOfKind(labelName(o.name), o.type) }));
    this.single = this.ops !== null && this.ops.length === 1 ? this.ops[0].op : UNKNOWN_OP;
  }

  // graphql-js's getOperationAST: without a name, the only operation; with
  // one, the first operation of that name.
  select(operationName) {
    if (operationName === undefined || operationName === null) return this.single;
    if (typeof operationName !== 'string' || this.ops === null) return UNKNOWN_OP;
    for (const o of this.ops) if (o.name === operationName) return o.op;
    return UNKNOWN_OP;
  }
}

const outlines = new Map(); // query text -> Outline
function outlineOf(text) {
  let outline = outlines.get(text);
  if (outline === undefined) {
    outline = new Outline(scanOperations(text));
    // Big documents are scanned each time rather than kept: clients choose
    // the texts (a server may accept megabytes).
    if (text.length > MAX_CACHED_TEXT) return outline;
    if (outlines.size >= MAX_DOCUMENTS) outlines.clear();
    outlines.set(text, outline);
  }
  return outline;
}

const documentOutlines = new WeakMap(); // DocumentNode -> Outline
function outlineOfDocument(document) {
  let outline = documentOutlines.get(document);
  if (outline === undefined) {
    let ops = [];
    const definitions = document.definitions;
    if (!Array.isArray(definitions)) {
      ops = null;
    } else {
      for (const d of definitions) {
        if (d.kind === 'OperationDefinition') {
          ops.push({ name: d.name ? d.name.value : null, type: d.operation });
        } else if (d.kind !== 'FragmentDefinition') {
          ops = null;
          break;
        }
      }
    }
    outline = new Outline(ops);
    documentOutlines.set(document, outline);
  }
  return outline;
}

// The operation of a query (text, or a parsed DocumentNode) and
// operationName.
function operationFor(query, operationName) {
  if (typeof query === 'string') return outlineOf(query).select(operationName);
  if (typeof query === 'object' && query !== null && query.kind === 'Document') return outlineOfDocument(query).select(operationName);
  return UNKNOWN_OP;
}

// Public: { name, type } of the operation a document and operationName
// select, as the labels name it, or null when none is selected.
function operationOf(query, operationName) {
  if (typeof query !== 'string' && (typeof query !== 'object' || query === null)) {
    throw errors.invalidOption('', 'a GraphQL document (a string or a DocumentNode)', query);
  }
  const op = operationFor(query, operationName);
  if (op === UNKNOWN_OP) return null;
  return { name: op.operation, type: op.type };
}

// --- persisted queries ---------------------------------------------------

// sha256 hash -> Outline of the text Apollo verified or found for it.
const persisted = new Map();
function rememberPersisted(hash, text) {
  if (typeof hash !== 'string' || typeof text !== 'string' || persisted.has(hash)) return;
  if (persisted.size >= MAX_DOCUMENTS) persisted.clear();
  persisted.set(hash, outlineOf(text));
}

function persistedHash(extensions) {
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  const pq = extensions.persistedQuery;
  return typeof pq === 'object' && pq !== null && typeof pq.sha256Hash === 'string' ? pq.sha256Hash : undefined;
}

// The operation of one GraphQL request's fields (a query that is not text
// is a parsed document only where `documents` allows it: executeOperation).
function operationOfParams(query, operationName, extensions, documents = false) {
  if (typeof query === 'string') return query === '' ? UNKNOWN_OP : outlineOf(query).select(operationName);
  if (query === undefined || query === null) {
    // A hash alone (Apollo looks it up only when there is no query).
    const hash = persistedHash(extensions);
    if (hash === undefined) return UNKNOWN_OP;
    const outline = persisted.get(hash);
    return outline === undefined ? PERSISTED_OP : outline.select(operationName);
  }
  return documents ? operationFor(query, operationName) : UNKNOWN_OP;
}

// --- labels, per plugin ----------------------------------------------------

// One warning per kind (labels, apollo, yoga) and thread.
const warn = (kind, message) => warnOnce(`graphql-${kind}`, `customlabels: ${message}`, 'CUSTOMLABELS_GRAPHQL_LABELS');

function mergeInto(out, more) {
  if (more instanceof Map) {
    for (const [k, v] of more) out[k] = v;
  } else {
    Object.assign(out, more);
  }
  return out;
}

// Validates the options once and returns the plugin's labeller:
//   run(op, request, headers, fn)  fn() under op's labels (and the user's)
//   active                         false when there is nothing to publish
function createLabeller(options) {
  if (options === undefined) options = {};
  if (typeof options !== 'object' || options === null) throw errors.invalidOption('', 'an object', options);
  const { labels: extra, operation = true, type = true } = options;
  if (extra !== undefined && typeof extra !== 'function') throw errors.invalidOption('labels', 'a function', extra);
  if (typeof operation !== 'boolean') throw errors.invalidOption('operation', 'a boolean', operation);
  if (typeof type !== 'boolean') throw errors.invalidOption('type', 'a boolean', type);

  const frozen = new Map(); // op -> frozen labels
  function labelsOf(op) {
    let out = frozen.get(op);
    if (out === undefined) {
      out = {};
      if (operation) out[OPERATION] = op.operation;
      if (type) out[TYPE] = op.type;
      Object.freeze(out);
      if (frozen.size >= MAX_OPERATIONS) frozen.clear();
      frozen.set(op, out);
    }
    return out;
  }

  // fn() under `labels`; if they cannot be published, under `fallback`,
  // else unlabelled. Errors of fn pass through.
  function runWith(labels, fallback, fn) {
    return withLabelsOr(labels, fn, (err) => {
      warn('labels', `GraphQL labels not published (${err && err.message}); operations run with ${fallback === null ? 'no labels of their own' : 'the GraphQL labels alone'}`);
      return fallback === null ? fn() : runWith(fallback, null, fn);
    });
  }

  let run;
  if (extra === undefined) {
    // Frozen strings of our own: withLabels never rejects them.
    run = (op, request, headers, fn) => withLabels(labelsOf(op), fn);
  } else {
    run = (op, request, headers, fn) => {
      const base = labelsOf(op);
      let labels;
      try {
        const more = extra({ operation: op.operation, type: op.type, headers, request });
        if (more === undefined || more === null) {
          labels = base;
        } else if (typeof more !== 'object') {
          throw errors.invalidOption('labels', 'a function returning an object', more);
        } else {
          labels = mergeInto({ ...base }, more);
        }
      } catch (err) {
        warn('labels', `options.labels failed (${err && err.message}); operations run with the GraphQL labels alone`);
        labels = base;
      }
      return runWith(labels, labels === base ? null : base, fn);
    };
  }
  return { run, active: operation || type || extra !== undefined };
}

// --- Apollo Server ---------------------------------------------------------

// Shared by every copy of this module: a copy's wrappers find a plugin made
// by another copy and call its own scope function.
const kApollo = Symbol.for('customlabels.graphql.apollo');
const kPatched = Symbol.for('customlabels.graphql.apolloPatched');
const kServerScope = Symbol('customlabels.graphql.serverScope');

function batchOperation(body) {
  let type = null;
  for (const piece of body) {
    const op = typeof piece === 'object' && piece !== null ? operationOfParams(piece.query, piece.operationName, piece.extensions) : UNKNOWN_OP;
    if (type === null) type = op.type;
    else if (type !== op.type) type = MIXED;
  }
  return operationOfKind(BATCH, type === null || type === UNKNOWN ? MIXED : type);
}

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

// The customlabels plugin of a server, or null. Looked up per request until
// the server has started (plugins can be added until then), then kept.
function scopeOf(server) {
  const kept = server[kServerScope];
  if (kept !== undefined) return kept;
  const internals = server.internals;
  if (typeof internals !== 'object' || internals === null || !Array.isArray(internals.plugins)) return null;
  let found = null;
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
  if (typeof apollo === 'function' && apollo.prototype && typeof apollo.prototype.executeHTTPGraphQLRequest === 'function') return apollo;
  if (typeof apollo === 'object' && apollo !== null) {
    if (typeof apollo.ApolloServer === 'function') return apolloClassOf(apollo.ApolloServer);
    if (typeof apollo.default === 'object' && apollo.default !== null) return apolloClassOf(apollo.default);
  }
  return null;
}

// Wraps an @apollo/server module's (or its ApolloServer class's)
// executeHTTPGraphQLRequest and executeOperation; idempotent, and shared by
// every copy of this module.
function instrument(apollo) {
  const ApolloServer = apolloClassOf(apollo);
  if (ApolloServer === null) {
    throw errors.invalidOption('', "the @apollo/server module (require('@apollo/server')) or its ApolloServer class", apollo);
  }
  // The prototype that defines the methods (a subclass shares its base's).
  let proto = ApolloServer.prototype;
  while (!Object.prototype.hasOwnProperty.call(proto, 'executeHTTPGraphQLRequest')) proto = Object.getPrototypeOf(proto);
  if (Object.prototype.hasOwnProperty.call(proto, kPatched)) return;
  Object.defineProperty(proto, kPatched, { value: true });
  const executeHTTP = proto.executeHTTPGraphQLRequest;
  proto.executeHTTPGraphQLRequest = function executeHTTPGraphQLRequest(args) {
    const scope = scopeOf(this);
    if (scope === null) return executeHTTP.call(this, args);
    return scope.http(this, args, () => executeHTTP.call(this, args));
  };
  const executeOperation = proto.executeOperation;
  if (typeof executeOperation === 'function') {
    proto.executeOperation = function executeOperation_(...args) {
      const scope = scopeOf(this);
      if (scope === null) return executeOperation.apply(this, args);
      return scope.operation(this, args[0], () => executeOperation.apply(this, args));
    };
  }
}

// Instruments the CommonJS @apollo/server that resolves from here, if it
// is loaded already (this module never loads a framework itself).
function instrumentLoaded() {
  let file;
  try {
    file = require.resolve('@apollo/server');
  } catch {
    return false;
  }
  const loaded = require.cache[file];
  if (loaded === undefined || apolloClassOf(loaded.exports) === null) return false;
  instrument(loaded.exports);
  return true;
}

function headersOf(request) {
  return typeof request === 'object' && request !== null && typeof request.headers === 'object' && request.headers !== null ? request.headers : undefined;
}

function apolloPlugin(options) {
  const labeller = createLabeller(options);
  let reached = false;
  const scope = {
    http(server, args, fn) {
      reached = true;
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
      reached = true;
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
  const listener = Object.freeze({
    // The text behind a persisted query's hash (verified by Apollo, or
    // found in its cache), for the next request that sends the hash alone.
    async didResolveSource(requestContext) {
      const { metrics } = requestContext;
      if (metrics && (metrics.persistedQueryHit || metrics.persistedQueryRegister)) {
        rememberPersisted(requestContext.queryHash, requestContext.source);
      }
    },
  });
  instrumentLoaded();
  const plugin = {
    // Before the first request. No CommonJS @apollo/server loaded: the app
    // uses the ESM build (a dual package: a class the CommonJS side never
    // sees), which it has loaded already, so importing it costs nothing.
    async serverWillStart() {
      if (instrumentLoaded()) return;
      try {
        instrument(await import('@apollo/server'));
      } catch {
        // Not resolvable from here: the warning at the first request says
        // what to do.
      }
    },
    // A listener only for requests that send a persisted query's hash:
    // Apollo calls no hook of this plugin for the others.
    async requestDidStart({ request }) {
      if (!reached) {
        warn(
          'apollo',
          "an ApolloServer with apolloPlugin() runs requests unlabelled: its class was not instrumented (call instrument(require('@apollo/server')), or instrument(await import('@apollo/server')) for the ESM build, before its first request)",
        );
      }
      return request && persistedHash(request.extensions) !== undefined ? listener : undefined;
    },
  };
  Object.defineProperty(plugin, kApollo, { value: scope });
  return plugin;
}

// --- Yoga and envelop -----------------------------------------------------

function isAsyncIterable(value) {
  return typeof value === 'object' && value !== null && typeof value[Symbol.asyncIterator] === 'function';
}

// A subscription's events are executed when the response pulls them: run
// each pull in the operation's scope again.
function labelledIterable(iterable, runInScope) {
  if (!isAsyncIterable(iterable)) return iterable;
  const it = iterable[Symbol.asyncIterator]();
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next(value) {
      return runInScope(() => it.next(value));
    },
    return(value) {
      return typeof it.return === 'function' ? runInScope(() => it.return(value)) : Promise.resolve({ done: true, value });
    },
    throw(error) {
      return typeof it.throw === 'function' ? runInScope(() => it.throw(error)) : Promise.reject(error);
    },
  };
}

function afterMaybePromise(value, fn) {
  return value !== null && typeof value === 'object' && typeof value.then === 'function' ? value.then(fn) : fn(value);
}

const safely = (get) => {
  try {
    return get();
  } catch {
    return UNKNOWN_OP;
  }
};

// The run and withEvents of a plugin's labeller.
function runners(labeller) {
  const run = (op, request, fn) => labeller.run(op, request, headersOf(request), fn);
  const withEvents = (op, request, result) => afterMaybePromise(result, (r) => labelledIterable(r, (next) => run(op, request, next)));
  return { run, withEvents };
}

function yogaPlugin(options) {
  const labeller = createLabeller(options);
  if (!labeller.active) return {};
  const { run, withEvents } = runners(labeller);
  return {
    onParams({ setParamsHandler, paramsHandler }) {
      if (typeof setParamsHandler !== 'function' || typeof paramsHandler !== 'function') {
        warn('yoga', 'a Yoga without setParamsHandler (Yoga 5 has it) runs operations unlabelled; use envelopPlugin() there');
        return;
      }
      setParamsHandler(function labelledParamsHandler(payload) {
        const { params, request } = payload;
        if (typeof params !== 'object' || params === null) return paramsHandler(payload);
        const op = safely(() => operationOfParams(params.query, params.operationName, params.extensions));
        const result = run(op, request, () => paramsHandler(payload));
        return op.type === 'subscription' ? withEvents(op, request, result) : result;
      });
    },
  };
}

function envelopPlugin(options) {
  const labeller = createLabeller(options);
  if (!labeller.active) return {};
  const { run, withEvents } = runners(labeller);
  const requestOf = (context) => (typeof context === 'object' && context !== null ? context.request : undefined);
  const operationNameOf = (context) => {
    const params = typeof context === 'object' && context !== null ? context.params : undefined;
    return typeof params === 'object' && params !== null ? params.operationName : undefined;
  };
  return {
    onParse({ context, params, parseFn, setParseFn }) {
      const source = params && params.source;
      const text = typeof source === 'string' ? source : source && typeof source.body === 'string' ? source.body : undefined;
      const op = safely(() => operationFor(text, operationNameOf(context)));
      const request = requestOf(context);
      setParseFn((...args) => run(op, request, () => parseFn(...args)));
    },
    onValidate({ context, params, validateFn, setValidationFn }) {
      const op = safely(() => operationFor(params && params.documentAST, operationNameOf(context)));
      const request = requestOf(context);
      setValidationFn((...args) => run(op, request, () => validateFn(...args)));
    },
    onExecute({ args, executeFn, setExecuteFn }) {
      const op = safely(() => operationFor(args.document, args.operationName));
      const request = requestOf(args.contextValue);
      setExecuteFn((...a) => run(op, request, () => executeFn(...a)));
    },
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const op = safely(() => operationFor(args.document, args.operationName));
      const request = requestOf(args.contextValue);
      setSubscribeFn((...a) => withEvents(op, request, run(op, request, () => subscribeFn(...a))));
    },
  };
}

module.exports = {
  apolloPlugin,
  yogaPlugin,
  envelopPlugin,
  instrument,
  operationOf,
  OPERATION_KEY: OPERATION,
  TYPE_KEY: TYPE,
};
