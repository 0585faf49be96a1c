'use strict';

// RabbitMQ (amqplib) in test/versions, against a real rabbitmq-server
// (test/versions/suites.js says what a suite holds).

const e2e = require('../../js/integrations/e2e/amqplib');

module.exports = {
  servers: ['broker'],
  published: ['queue', 'exchange', 'routing_key'],
  run: (entry, env, { broker }) => e2e.run({ url: broker.url, env }),
  served: (result, entry, { unsupported }) => e2e.served(result, { unsupported }),
  checkpoints: (result) => e2e.checkpoints(result),
  warnings: (result) => e2e.warnings(result),
  builders: { amqplib: (v) => ({ set: { packages: { amqplib: v } } }) },
  hand: (entry) => [entry('amqplib', '0.10.4', 'callback model as ES classes; ConfirmChannel#publish through super')],
  notes: { 'amqplib@1.2.0': 'an exports map (lib/ not exported)' },
};
