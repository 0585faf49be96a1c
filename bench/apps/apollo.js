'use strict';

// Apollo Server 5 on Express 5 (@as-integrations/express5) for the
// integrations suite: POST /graphql of one named query (operationName given,
// as clients send it). Modes, the middleware registered right before
// Apollo's:
//   none         no instrumentation
//   als-mw       AsyncLocalStorage#run({ operation, type }, next)
//   labels-mw    the hand-written withLabels middleware:
//                withLabels({ 'graphql.operation': req.body.operationName,
//                'graphql.type': 'query' }, next) (trusting the client's
//                operationName, reading no document)
//   integration  customlabels/graphql apolloPlugin()

const { AsyncLocalStorage } = require('node:async_hooks');

const { typeDefs, resolversFor, request } = require('../graphql-request');

module.exports = {
  modes: ['none', 'als-mw', 'labels-mw', 'integration'],
  request,
  async serve(mode, handled) {
    const express = require('express');
    const { ApolloServer } = require('@apollo/server');
    const { expressMiddleware } = require('@as-integrations/express5');
    const plugins = mode === 'integration' ? [require('../../lib/integrations/graphql').apolloPlugin()] : [];
    const server = new ApolloServer({
      typeDefs,
      resolvers: resolversFor(handled),
      plugins,
    });
    await server.start();
    const scoped = [];
    if (mode === 'als-mw') {
      const als = new AsyncLocalStorage();
      scoped.push((req, res, next) => als.run({ operation: req.body.operationName, type: 'query' }, next));
    } else if (mode === 'labels-mw') {
      const { withLabels } = require('../..');
      scoped.push((req, res, next) => withLabels({ 'graphql.operation': req.body.operationName ?? '(anonymous)', 'graphql.type': 'query' }, next));
    } else if (mode !== 'none' && mode !== 'integration') {
      throw new Error(`unknown apollo mode ${mode}`);
    }
    const app = express();
    app.post('/graphql', express.json(), ...scoped, expressMiddleware(server));
    return new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening.address().port));
    });
  },
};
