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
const { runCheckpoints, expectEveryCheckpointSeen, REGISTERED } = require('./harness');
const { startRabbitmq, rabbitmqServerPath, missingReason } = require('./rabbitmq-server');
const { testIf } = require('../helpers');

const fixture = path.join(__dirname, '..', 'fixtures', 'amqplib-app.js');
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
  let run;
  const events = [];
  beforeAll(async () => {
    // Warnings are reported in the result event (the fixture's 'warning'
    // listener), so stderr holds only what should not be there.
    const env = { NODE_NO_WARNINGS: '1', ...WIRINGS[wiring] };
    if (hasBroker) run = await runCheckpoints(fixture, { args: [broker.url], env, onEvent: (e) => events.push(e) });
  }, 120000);

  brokerTest(`${wiring}: every message was acked once (the requeued one after its redelivery), and the process exited cleanly`, () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = events.find((e) => e.event === 'result');
    expect(result.redelivered).toEqual(['p0']);
    // The garbage label data: one warning, the message still consumed.
    expect(result.warnings).toEqual(['CUSTOMLABELS_MESSAGE_LABELS']);
  });

  brokerTest(`${wiring}: in each consumer callback, after an await and in the ack path the reader sees the queue and the producer's labels, never its trace id`, () => {
    const counts = {};
    for (const cp of run.checkpoints) {
      const kind = cp.name.replace(/ [a-z0-9-]+$/, '');
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
    // 8 messages, one delivered twice (its first delivery has no ack path).
    expect(counts).toEqual({ 'consumer callback': 9, 'after an await': 9, 'ack path': 8 });
    for (const cp of run.checkpoints) expect(cp.expect.trace_id).toBeUndefined();
    expectEveryCheckpointSeen(run.checkpoints);
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
