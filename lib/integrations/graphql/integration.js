'use strict';

// customlabels/graphql in the table of integrations (lib/integrations/index.js).
// With register: every ApolloServer runs through the labelling wrappers
// (graphql/apollo.js; a server with an apolloPlugin() of its own uses that
// one's options), and createYoga puts a yogaPlugin() first in every Yoga
// that has none (graphql/envelop.js): in Yoga's CommonJS build as an export
// of cjs/server.js, in its ES module build (module.registerHooks) as the
// function declaration esm/server.js exports. graphql-js itself is read
// (its Lexer: graphql/outline.js), never patched.

const { defineIntegration } = require('../kit/integration');

const APOLLO = '@apollo/server';
const YOGA = 'graphql-yoga';
const apollo = () => require('./apollo');
const envelop = () => require('./envelop');
const apolloFile = '@apollo/server/dist/cjs/ApolloServer.js';
// The double of a method of ApolloServer: each server's own, off the
// class (what apps and integrations call stays there).
const ownMethod = (name, signature) => ({
  edits: [
    [apolloFile, `    async ${name}(${signature}`, `    async ${name}Moved(${signature}`],
    [apolloFile, '    constructor(config) {\n', `    constructor(config) {\n        this.${name} = this.${name}Moved;\n`],
  ],
});
const apolloMethod = (name, signature, why) => ({
  package: APOLLO,
  of: 'apollo',
  name: `ApolloServer#${name}`,
  why,
  check: (ApolloServer) => apollo().definingProto(ApolloServer.prototype, name) !== null,
  double: ownMethod(name, signature),
});
const unpatch = () => {
  envelop().unpatchYogas();
  apollo().unpatchApollo();
};

const integration = defineIntegration({
  name: 'graphql',
  title: 'GraphQL (Apollo Server, GraphQL Yoga)',
  subpath: './graphql',
  labels: ['graphql.operation', 'graphql.type'],
  packages: { [APOLLO]: '4.x || 5.x', [YOGA]: '>=5.11.0 <6', graphql: '15.x || 16.x || 17.x' },
  internals: [
    apolloMethod('executeHTTPGraphQLRequest', '{', 'what every Apollo HTTP integration calls; the plugin hooks (requestDidStart, willResolveField...) are callbacks that wrap nothing, so they cannot open a scope around an operation'),
    apolloMethod('executeOperation', 'request, options', 'the same, for operations run without HTTP (tests, executeOperation())'),
    {
      package: APOLLO,
      of: 'apollo server',
      name: 'server.internals.plugins',
      why: "to find a server's apolloPlugin() (its internals.state.phase says when they are final), and (register) to give a server without one the persisted-query listener; checked at its first request",
      check: (server) => Array.isArray(server.internals.plugins),
      double: {
        edits: [
          [apolloFile, 'this.internals', 'this.internalsMoved'],
          [apolloFile, '    internals;\n', '    internalsMoved;\n'],
        ],
      },
    },
    {
      package: YOGA,
      of: 'yoga',
      name: 'createYoga (cjs/server.js, esm/server.js)',
      why: 'plugins are read once, when a Yoga is made; yogaPlugin() itself uses the public onParams hook',
      register: true,
      // cjs/server.js's exports, or esm/server.js's function.
      check: (server) => typeof server === 'function' || typeof server.createYoga === 'function',
      double: {
        edits: [
          ['graphql-yoga/cjs/server.js', 'exports.createYoga = createYoga;', 'exports.createYogaMoved = createYoga;'],
          ['graphql-yoga/cjs/index.js', 'tslib_1.__exportStar(require("./server.js"), exports);', 'tslib_1.__exportStar(require("./server.js"), exports);\nexports.createYoga = require("./server.js").createYogaMoved;'],
        ],
      },
    },
  ],
  reach: [
    { kind: 'module', package: APOLLO, esm: true, patch: (mod, context) => apollo().patchApollo(mod, context), unpatch },
    { kind: 'file', package: YOGA, file: 'cjs/server.js', patch: (server, context) => envelop().patchYogaExports(server, context), unpatch },
    { kind: 'esm-file', package: YOGA, file: 'esm/server.js', binding: 'createYoga', patch: (createYoga, context) => envelop().patchYogaBinding(createYoga, context), unpatch },
  ],
});

module.exports = integration;
