'use strict';

// The request bench/apps/apollo.js and yoga.js are asked: one named query,
// with its operationName, as clients send it.
const QUERY = 'query GetUser($id: ID!) { user(id: $id) { id name } }';

module.exports = {
  typeDefs: 'type Query { user(id: ID!): User } type User { id: ID!, name: String }',
  request: {
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: QUERY, operationName: 'GetUser', variables: { id: '7' } }),
  },
};
