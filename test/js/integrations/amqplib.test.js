'use strict';

// customlabels/amqplib with a real RabbitMQ broker (Debian's
// rabbitmq-server, started here on free ports of 127.0.0.1 and stopped
// after): messages published from labelled scopes are consumed, with the
// promise and the callback API, under their queue (and, opted in, exchange
// and routing key) plus the producer's labels, read from outside in the
// consumer callback, after an await and in the ack path; a nacked message
// is redelivered under the same labels; a message with garbage label data
// runs with the consumer's labels alone. By hand, with
// customlabels/register, and by hand under register (the app's options
// win).

const path = require('node:path');
const { REGISTERED } = require('./harness');
const e2e = require('./e2e/amqplib');
const { startRabbitmq, rabbitmqServerPath, missingReason } = require('./rabbitmq-server');
const { testIf } = require('../helpers');

const hasBroker = rabbitmqServerPath !== null;
const brokerTest = testIf(hasBroker, missingReason);

let broker = null;
beforeAll(async () => {
  if (hasBroker) broker = await startRabbitmq();
}, 120000);
afterAll(async () => {
  if (broker !== null) await broker.stop();
}, 60000);

// 'by hand under register': the app calls instrument() with its options
// while customlabels/register is loaded; its options take over.
const WIRINGS = {
  'by hand': {},
  'with customlabels/register': { ...REGISTERED, CUSTOMLABELS_LABELS: 'service=shop,version=1.4.2' },
  'by hand under customlabels/register': { ...REGISTERED, CUSTOMLABELS_FIXTURE_WIRING: 'both' },
};

describe.each(Object.keys(WIRINGS))('amqplib, wired %s', (wiring) => {
  let result;
  beforeAll(async () => {
    if (hasBroker) result = await e2e.run({ url: broker.url, env: WIRINGS[wiring] });
  }, 120000);

  brokerTest(`${wiring}: every message was acked once (the requeued one after its redelivery), and the process exited cleanly`, () => {
    expect(result.run.stderr).toBe('');
    expect(result.run.code).toBe(0);
    // The garbage label data: one warning, the message still consumed.
    e2e.served(result);
  });

  brokerTest(`${wiring}: in each consumer callback, after an await and in the ack path the reader sees the queue and the producer's labels, never its trace id`, () => {
    e2e.checkpoints(result);
  });
});

test('bad arguments are TypeErrors with a stable code, and patch nothing', () => {
  const amqplib = require('amqplib');
  const { instrument } = require('../../../lib/integrations/amqplib');
  const codes = [];
  for (const bad of [
    () => instrument({}),
    () => instrument(amqplib, { routing: 'yes' }),
    () => instrument(amqplib, { labels: 7 }),
    () => instrument(amqplib, { producerLabels: 1 }),
    () => instrument(amqplib, undefined, 'node_modules/amqplib/channel_api.js'),
  ]) {
    try {
      bad();
    } catch (e) {
      codes.push(`${e.name} ${e.code}`);
    }
  }
  expect(codes).toEqual(Array(5).fill('TypeError ERR_CUSTOMLABELS_INVALID_OPTION'));
  const { Channel } = require(path.join(path.dirname(require.resolve('amqplib')), 'lib', 'channel_model.js'));
  expect(Object.getOwnPropertySymbols(Channel.prototype).map(String)).not.toContain('Symbol(customlabels.amqplib.patched)');
});
