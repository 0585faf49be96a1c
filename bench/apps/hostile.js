'use strict';

// The app of bench/hostile.js: Express 5 with Apollo Server 5 on /graphql
// (one resolver, `hello`), run unmodified under customlabels/register with
// x-tenant as a header label. Announces {port} on stdout; on SIGUSR2 prints
// {rss, heapUsed, errors} (errors: what reached the app's error handler or
// process) and exits.

const express = require('express');
const { ApolloServer } = require('@apollo/server');
const { expressMiddleware } = require('@as-integrations/express5');

const errors = [];
process.on('uncaughtException', (err) => errors.push(String(err && err.stack)));
process.on('unhandledRejection', (err) => errors.push(String(err && err.stack)));

(async () => {
  const server = new ApolloServer({ typeDefs: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'world' } } });
  await server.start();
  const app = express();
  app.post('/graphql', express.json(), expressMiddleware(server));
  app.use((err, req, res, next) => {
    errors.push(String(err && err.stack));
    next(err);
  });
  const http = app.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: http.address().port })}\n`));
  process.on('SIGUSR2', () => {
    if (global.gc) global.gc();
    const { rss, heapUsed } = process.memoryUsage();
    process.stdout.write(`${JSON.stringify({ rss, heapUsed, errors })}\n`);
    process.exit(0);
  });
})();
