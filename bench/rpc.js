'use strict';

// customlabels/grpc and customlabels/amqplib against the same labels set by
// hand (issue #27): process CPU per unary gRPC call (a @grpc/grpc-js server
// and its client in one process, 8 calls in flight, each made from a
// labelled scope) and per RabbitMQ message (one process publishes from
// labelled scopes and consumes, prefetch 50, each message acked), by mode:
//   none         no labels on the server or consumer side
//   by-hand      the hand-written equivalent: the handler or consumer
//                callback wrapped in withLabels({ rpc.service, rpc.method })
//                / withLabels({ queue, ...the producer's labels }), the
//                producer attaching its labels in a header itself
//   integration  instrument(grpc) / instrument(amqplib)
// Each run starts one fresh process per mode, in rotating order, pinned to
// one CPU; a process makes --warmup calls (messages) unmeasured, then
// --calls measured by process.cpuUsage. Printed: medians per mode and the median of the per-run
// ratios integration ÷ by-hand, per Node.js version and kind.
//
//   node bench/rpc.js [--node PATH|MAJOR]... [--runs 5] [--kind grpc,amqp] [--calls 20000] [--warmup 3000]
//
// amqp needs rabbitmq-server (Debian's; started here on free ports).

const { execFileSync } = require('node:child_process');
const path = require('node:path');

const MODES = ['none', 'by-hand', 'integration'];
const root = path.join(__dirname, '..');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const rotate = (xs, k) => xs.map((_, i) => xs[(i + k) % xs.length]);
const TENANTS = ['acme', 'globex', 'initech'];

// --- one measured process ----------------------------------------------------

async function grpcChild(mode, calls, warmup) {
  const grpc = require('@grpc/grpc-js');
  const loader = require('@grpc/proto-loader');
  const { withLabels } = require('..');
  if (mode === 'integration') require('../lib/integrations/grpc').instrument(grpc);
  const pkg = grpc.loadPackageDefinition(loader.loadSync(path.join(root, 'examples', 'grpc', 'shop.proto')));
  let getItem = (call, callback) => callback(null, { sku: call.request.sku, stock: 1 });
  if (mode === 'by-hand') {
    const plain = getItem;
    const labels = { 'rpc.service': 'shop.v1.Catalog', 'rpc.method': 'GetItem' };
    getItem = (call, callback) => withLabels(labels, () => plain(call, callback));
  }
  const server = new grpc.Server();
  server.addService(pkg.shop.v1.Catalog.service, { GetItem: getItem, WatchStock: (call) => call.end() });
  const port = await new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  const client = new pkg.shop.v1.Catalog(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const batch = (n) =>
    new Promise((resolve, reject) => {
      let started = 0;
      let done = 0;
      const next = () => {
        if (started === n) return;
        const i = started++;
        withLabels({ tenant: TENANTS[i % 3] }, () =>
          client.GetItem({ sku: `s${i}` }, (e) => {
            if (e) return reject(e);
            if (++done === n) return resolve();
            next();
          }),
        );
      };
      for (let k = 0; k < 8; k++) next();
    });
  await batch(warmup);
  const before = process.cpuUsage();
  await batch(calls);
  const used = process.cpuUsage(before);
  client.close();
  server.forceShutdown();
  return (used.user + used.system) / calls;
}

async function amqpChild(mode, calls, warmup, url) {
  const amqplib = require('amqplib');
  const { withLabels, currentLabels } = require('..');
  if (mode === 'integration') require('../lib/integrations/amqplib').instrument(amqplib);
  const conn = await amqplib.connect(url);
  const ch = await conn.createChannel();
  const queue = `bench-${process.pid}`;
  await ch.assertQueue(queue, { durable: false, autoDelete: true });
  await ch.prefetch(50);
  let waiting = 0;
  let drained = null;
  let onMessage = (msg) => {
    ch.ack(msg);
    if (--waiting === 0) drained();
  };
  if (mode === 'by-hand') {
    const plain = onMessage;
    onMessage = (msg) => {
      let carried = {};
      const header = msg.properties.headers && msg.properties.headers['x-customlabels'];
      if (typeof header === 'string') carried = JSON.parse(header);
      return withLabels({ ...carried, queue }, () => plain(msg));
    };
  }
  await ch.consume(queue, onMessage);
  const body = Buffer.from('{"image":"cat.png"}');
  const send = (i) =>
    withLabels({ tenant: TENANTS[i % 3] }, () => {
      const options = mode === 'by-hand' ? { headers: { 'x-customlabels': JSON.stringify(currentLabels()) } } : {};
      ch.sendToQueue(queue, body, options);
    });
  const batch = async (n) => {
    for (let i = 0; i < n; i += 100) {
      const k = Math.min(100, n - i);
      waiting = k;
      const done = new Promise((r) => (drained = r));
      for (let j = 0; j < k; j++) send(i + j);
      await done;
    }
  };
  await batch(warmup);
  const before = process.cpuUsage();
  await batch(calls);
  const used = process.cpuUsage(before);
  await ch.close();
  await conn.close();
  return (used.user + used.system) / calls;
}

// --- the orchestration -------------------------------------------------------

// Each measured process is pinned to CPU 1 where there are two (the broker,
// and this process, keep the other).
const pinned = require('node:os').cpus().length > 1;

function measure(node, kind, mode, { calls, warmup, url }) {
  const args = [node, __filename, '--child', kind, mode, String(calls), String(warmup), url ?? ''];
  const [file, ...rest] = pinned ? ['taskset', '-c', '1', ...args] : args;
  const out = execFileSync(file, rest, { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  return JSON.parse(out.trim().split('\n').pop()).us;
}

async function benchRpc(node, { runs = 5, kinds = ['grpc', 'amqp'], calls = 20000, warmup = 3000 } = {}) {
  const results = [];
  let broker = null;
  try {
    for (const kind of kinds) {
      let url;
      if (kind === 'amqp') {
        broker = broker ?? (await require('../test/js/integrations/rabbitmq-server').startRabbitmq());
        url = broker.url;
      }
      const us = Object.fromEntries(MODES.map((m) => [m, []]));
      for (let r = 0; r < runs; r++) {
        for (const mode of rotate(MODES, r)) us[mode].push(measure(node, kind, mode, { calls, warmup, url }));
      }
      const ratios = us.integration.map((x, i) => x / us['by-hand'][i]);
      results.push({
        node: execFileSync(node, ['--version'], { encoding: 'utf8' }).trim(),
        kind,
        runs,
        usPerCall: Object.fromEntries(MODES.map((m) => [m, Number(median(us[m]).toFixed(2))])),
        integrationOverByHand: Number(median(ratios).toFixed(3)),
        ratios: ratios.map((x) => Number(x.toFixed(3))),
      });
    }
  } finally {
    if (broker !== null) await broker.stop();
  }
  return results;
}

async function main(argv) {
  if (argv[0] === '--child') {
    const [, kind, mode, calls, warmup, url] = argv;
    const us = kind === 'grpc' ? await grpcChild(mode, Number(calls), Number(warmup)) : await amqpChild(mode, Number(calls), Number(warmup), url);
    process.stdout.write(`${JSON.stringify({ us })}\n`);
    return;
  }
  const { opt, nodes: nodesOr } = require('./cli').cli(__filename, argv);
  const nodes = nodesOr([process.execPath]);
  const options = { runs: Number(opt('--runs', 5)), kinds: opt('--kind', 'grpc,amqp').split(','), calls: Number(opt('--calls', 20000)), warmup: Number(opt('--warmup', 3000)) };
  for (const node of nodes) {
    for (const r of await benchRpc(node, options)) console.log(JSON.stringify(r));
  }
}

module.exports = { benchRpc };

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
