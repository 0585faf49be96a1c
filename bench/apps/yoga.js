'use strict';

// GraphQL Yoga 5 on node:http for the integrations suite: POST /graphql of
// one named query (operationName given, as clients send it). Modes:
//   none         no instrumentation
//   als-mw       a Yoga plugin that runs each operation's params handler in
//                AsyncLocalStorage#run({ operation, type })
//   labels-mw    the hand-written withLabels plugin: the same, with
//                withLabels({ 'graphql.operation': params.operationName,
//                'graphql.type': 'query' }) (trusting the client's
//                operationName, reading no document)
//   integration  customlabels/graphql yogaPlugin()

const http = require('node:http');
const { AsyncLocalStorage } = require('node:async_hooks');

const { typeDefs, resolversFor, request } = require('../graphql-request');

// A plugin that runs each operation in scope(params, fn).
const around = (scope) => ({
  onParams({ setParamsHandler, paramsHandler }) {
    setParamsHandler((payload) => scope(payload.params, () => paramsHandler(payload)));
  },
});

module.exports = {
  modes: ['none', 'als-mw', 'labels-mw', 'integration'],
  request,
  serve(mode, handled) {
    const { createYoga, createSchema } = require('graphql-yoga');
    const plugins = [];
    if (mode === 'als-mw') {
      const als = new AsyncLocalStorage();
      plugins.push(around((params, fn) => als.run({ operation: params.operationName, type: 'query' }, fn)));
    } else if (mode === 'labels-mw') {
      const { withLabels } = require('../..');
      plugins.push(around((params, fn) => withLabels({ 'graphql.operation': params.operationName ?? '(anonymous)', 'graphql.type': 'query' }, fn)));
    } else if (mode === 'integration') {
      plugins.push(require('../../lib/integrations/graphql').yogaPlugin());
    } else if (mode !== 'none') {
      throw new Error(`unknown yoga mode ${mode}`);
    }
    const schema = createSchema({
      typeDefs,
      resolvers: resolversFor(handled),
    });
    const server = http.createServer(createYoga({ schema, plugins, logging: false, graphiql: false }));
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
  },
};
