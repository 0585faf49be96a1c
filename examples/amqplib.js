'use strict';

// RabbitMQ messages labelled by customlabels/amqplib: requests of three
// tenants publish `thumbnail` messages (acme's cost 1 ms of CPU, globex's
// 2 ms, initech's 3 ms) and a consumer processes them, each under queue
// (thumbnails) and the tenant and route of the scope that published it,
// carried in one message header. It runs for --seconds (default 30) and
// prints its pid, so you can watch it from outside:
//
//   AMQP_URL=amqp://guest:guest@127.0.0.1:5672 node examples/amqplib.js &
//   npm run reader -- sample <pid> --duration 5s --by tenant
//
// RabbitMQ: AMQP_URL (default amqp://guest:guest@127.0.0.1:5672), e.g.
// Debian's rabbitmq-server or `docker run -p 5672:5672 rabbitmq`.
// Requires amqplib (npm install amqplib).

const amqplib = require('amqplib');
const { withLabels } = require('customlabels');
const { instrument } = require('customlabels/amqplib');

const { burn, secondsArg } = require('./load');

// Before any channel is used: consumers run each message under its queue and
// the producer's labels; publishers attach the labels current where they
// publish.
instrument(amqplib);

const seconds = secondsArg();
const url = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
const cost = { acme: 1, globex: 2, initech: 3 }; // ms of CPU per message
const QUEUE = 'thumbnails';

// Returns stop(): no more deliveries, and the ones in hand finished.
async function consume(channel) {
  let inFlight = 0;
  let idle = null;
  await channel.prefetch(4);
  const { consumerTag } = await channel.consume(QUEUE, async (msg) => {
    inFlight += 1;
    const { ms } = JSON.parse(msg.content.toString());
    await new Promise((r) => setTimeout(r, 1)); // labels hold across awaits
    burn(ms); // CPU attributed to the publisher's tenant
    channel.ack(msg);
    if (--inFlight === 0 && idle) idle();
  });
  return async () => {
    await channel.cancel(consumerTag);
    if (inFlight > 0) await new Promise((r) => (idle = r));
  };
}

// The producers: each "request" publishes from its labelled scope; a dozen
// at a time, then a wait while the queue has a backlog.
async function produce(channel, stopAt) {
  const tenants = Object.keys(cost);
  let n = 0;
  while (Date.now() < stopAt) {
    const { messageCount } = await channel.checkQueue(QUEUE);
    if (messageCount > 20) {
      await new Promise((r) => setTimeout(r, 5));
      continue;
    }
    for (let k = 0; k < 12; k++) {
      const tenant = tenants[n++ % tenants.length];
      withLabels({ tenant, route: '/thumbnails' }, () => {
        channel.sendToQueue(QUEUE, Buffer.from(JSON.stringify({ ms: cost[tenant] })));
      });
    }
    await channel.waitForConfirms();
  }
}

async function main() {
  const connection = await amqplib.connect(url);
  try {
    const consumer = await connection.createChannel();
    await consumer.assertQueue(QUEUE, { durable: false });
    await consumer.purgeQueue(QUEUE);
    const stopConsuming = await consume(consumer);
    const producer = await connection.createConfirmChannel();
    console.log(`pid ${process.pid}: publishing and consuming on ${QUEUE} for ${seconds} s`);
    await produce(producer, Date.now() + seconds * 1000);
    await producer.close();
    await stopConsuming();
    await consumer.close();
  } finally {
    await connection.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
