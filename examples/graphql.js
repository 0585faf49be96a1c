'use strict';

// An Apollo Server 5 on Express 5 with customlabels/express and
// customlabels/graphql: every operation carries method and route (the HTTP
// layer's: POST /graphql), tenant, graphql.operation (GetUser, PlaceOrder)
// and graphql.type, through parsing, validation, its resolvers and their
// DataLoader batches. It serves a steady load from a built-in client for
// --seconds (default 30) and prints its pid:
//
//   node examples/graphql.js &
//   npm run reader -- sample <pid> --duration 5s --by graphql.operation
//
// Requires @apollo/server, @as-integrations/express5, express, graphql and
// dataloader. For GraphQL Yoga: createYoga({ schema, plugins: [yogaPlugin()] }).

const express = require('express');
const DataLoader = require('dataloader');
const { ApolloServer } = require('@apollo/server');
const { expressMiddleware } = require('@as-integrations/express5');
const { labels } = require('customlabels/express');
const { apolloPlugin } = require('customlabels/graphql');

const { steadyLoad, burn, secondsArg } = require('./load');

const seconds = secondsArg();

const server = new ApolloServer({
  typeDefs: `
    type Query { user(id: ID!): User }
    type User { id: ID!, friends: [User] }
    type Mutation { placeOrder(items: [Int!]!): Int }
  `,
  resolvers: {
    Query: {
      async user(_, { id }) {
        await new Promise((r) => setTimeout(r, 1));
        burn(2);
        return { id };
      },
    },
    User: { friends: (user, args, { friends }) => friends.loadMany([`${user.id}-a`, `${user.id}-b`]) },
    Mutation: {
      placeOrder(_, { items }) {
        burn(1);
        return items.length;
      },
    },
  },
  plugins: [apolloPlugin()],
});

const operations = [
  { query: 'query GetUser($id: ID!) { user(id: $id) { id friends { id } } }', variables: { id: '7' } },
  { query: 'mutation PlaceOrder { placeOrder(items: [1, 2, 3]) }' },
];

server.start().then(() => {
  const app = express();
  app.use(labels({ labels: (req) => ({ tenant: req.get('x-tenant') ?? 'anonymous' }) }));
  app.post(
    '/graphql',
    express.json(),
    expressMiddleware(server, {
      // A DataLoader per request: its batch runs under the operation's labels.
      context: async () => ({
        friends: new DataLoader(async (ids) => {
          burn(0.5);
          return ids.map((id) => ({ id }));
        }),
      }),
    }),
  );
  const listening = app.listen(0, '127.0.0.1', () => {
    const { port } = listening.address();
    console.log(`pid ${process.pid}: serving GraphQL on 127.0.0.1:${port}/graphql for ${seconds} s`);
    const requestOf = (i) => ({ method: 'POST', path: '/graphql', body: JSON.stringify(operations[i % 3 === 0 ? 1 : 0]) });
    steadyLoad(port, seconds, () => listening.close(() => server.stop()), { requestOf });
  });
});
