'use strict';

// The amqplib integration on every version its range claims, one just
// outside and one whose private name moved (test/versions/describe-versions.js),
// against a real rabbitmq-server started here.

const { describeVersions } = require('./describe-versions');
const { startRabbitmq } = require('../js/integrations/rabbitmq-server');

const broker = {};
beforeAll(async () => {
  const server = await startRabbitmq();
  Object.assign(broker, { url: server.url, stop: () => server.stop() });
}, 120000);
afterAll(() => broker.stop && broker.stop(), 60000);

describeVersions('amqplib', { broker });
