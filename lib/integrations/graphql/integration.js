'use strict';

// customlabels/graphql in the table of integrations (lib/integrations/index.js).
// With register: every ApolloServer runs through the labelling wrappers
// (graphql/apollo.js; a server with an apolloPlugin() of its own uses that
// one's options), and createYoga puts a yogaPlugin() first in every Yoga
// that has none (graphql/envelop.js): in Yoga's CommonJS build as an export
// of cjs/server.js, in its ES module build (module.registerHooks) as the
// function declaration esm/server.js exports.

const { defineIntegration } = require('../kit/integration');
const supported = require('./packages');

const integration = defineIntegration({
  name: supported.name,
  title: 'GraphQL (Apollo Server, GraphQL Yoga)',
  subpath: './graphql',
  packages: supported.packages,
  internals: [
    { package: '@apollo/server', name: 'ApolloServer#executeHTTPGraphQLRequest, #executeOperation', why: 'what every Apollo HTTP integration calls; the plugin hooks (requestDidStart, willResolveField...) are callbacks that wrap nothing, so they cannot open a scope around an operation' },
    { package: '@apollo/server', name: 'server.internals.plugins, server.internals.state.phase', why: "to find a server's apolloPlugin() once it has started, and (register) to give a server without one the persisted-query listener" },
    { package: 'graphql-yoga', name: 'createYoga (cjs/server.js, esm/server.js)', why: 'register only: plugins are read once, when a Yoga is made; yogaPlugin() itself uses the public onParams hook' },
  ],
  reach: [
    {
      kind: 'module',
      package: '@apollo/server',
      esm: true,
      patch: (apollo, { version }) => require('./apollo').labelAllServers(apollo, version),
    },
    {
      kind: 'file',
      package: 'graphql-yoga',
      file: 'cjs/server.js',
      patch: (server) => require('./envelop').labelYogaExports(server),
    },
    {
      kind: 'esm-file',
      package: 'graphql-yoga',
      file: 'esm/server.js',
      binding: 'createYoga',
      patch: (createYoga) => require('./envelop').labelYogas(createYoga, {}),
    },
  ],
  unpatch() {
    require('./envelop').unpatchYogas();
    require('./apollo').unpatchApollo();
  },
});

module.exports = integration;
