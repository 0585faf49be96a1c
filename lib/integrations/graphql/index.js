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
// server parses it: the document's outline, read with graphql-js's own
// Lexer and cached by the query text (graphql/outline.js), gives the
// operations it defines, and the one that runs is chosen as graphql-js's
// getOperationAST chooses it.
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
// - a document whose outline cannot be read (a token graphql-js's Lexer
//   rejects, unbalanced brackets, a type-system definition, which is never
//   executable), or an app without graphql-js: (unknown) / (unknown). A
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
//
// The parts: graphql/outline.js (which operation a request runs),
// graphql/labeller.js (options and the scope), graphql/apollo.js,
// graphql/envelop.js (Yoga and envelop).

const integration = require('./integration');
const apollo = require('./apollo');
const envelop = require('./envelop');
const { operationOf } = require('./outline');
const { OPERATION, TYPE } = require('./labeller');

module.exports = {
  apolloPlugin: (options) => apollo.apolloPlugin(options, integration),
  yogaPlugin: (options) => envelop.yogaPlugin(options, integration),
  envelopPlugin: (options) => envelop.envelopPlugin(options, integration),
  instrument: (server) => apollo.instrument(integration, server),
  operationOf: (query, operationName) => operationOf(integration, query, operationName),
  OPERATION_KEY: OPERATION,
  TYPE_KEY: TYPE,
};
