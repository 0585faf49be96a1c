'use strict';

// What bench/apps/apollo.js and yoga.js serve and are asked: one schema,
// one named query with its operationName (as clients send it).
const operation = { query: 'query GetUser($id: ID!) { user(id: $id) { id name } }', operationName: 'GetUser', variables: { id: '7' } };

module.exports = {
  operation,
  typeDefs: 'type Query { user(id: ID!): User } type User { id: ID!, name: String }',
  // handled() counts each request that reached its resolver.
  resolversFor: (handled) => ({
    Query: {
      user(_, { id }) {
        handled();
        return { id, name: `user ${id}` };
      },
    },
  }),
  request: {
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(operation),
  },
};
