'use strict';

// The table of integrations: one descriptor per integration module
// (kit/integration.js says what a descriptor holds). customlabels/register
// applies them in this order (lib/register/), `customlabels versions`
// prints their ranges, and package.json's exports, the types and the docs'
// integration table are checked against it (test/js/integrations/
// table.test.js). Adding an integration is adding its module here, with its
// tests.

module.exports = Object.freeze([
  require('./http/integration'),
  require('./express/integration'),
  require('./fastify/integration'),
  require('./koa/integration'),
  require('./hapi/integration'),
  require('./hono/integration'),
  require('./graphql/integration'),
  require('./bullmq/integration'),
  require('./next/integration'),
  require('./otel/integration'),
  require('./grpc/integration'),
  require('./amqplib/integration'),
  require('./worker/integration'),
  require('./pprof/integration'),
  require('./socketio/integration'),
]);
