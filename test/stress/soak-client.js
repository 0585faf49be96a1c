'use strict';

// The soak's load: GET requests over `connections` keep-alive connections,
// each connection sending its next request once the previous one answered.
// A process of its own, so that its memory is not the server's.
//   node test/stress/soak-client.js <port> <connections>
// Over IPC: {run: n} sends n more requests and answers {sent, failed, firstFailure}.

const http = require('node:http');

const [port, connections] = process.argv.slice(2).map(Number);
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const tenants = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne', 'tyrell'];
let next = 0;

function path(i) {
  const r = i % 10;
  if (r < 7) return `/orders/${i}`;
  if (r < 9) return '/report';
  return '/health';
}

function request(i) {
  return new Promise((resolve) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: path(i), agent, headers: { 'x-tenant': tenants[(i * 7) % tenants.length] } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200 ? null : `status ${res.statusCode} for ${path(i)}`));
        res.on('error', (err) => resolve(err.message));
      },
    );
    req.on('error', (err) => resolve(err.message));
  });
}

async function run(count) {
  const end = next + count;
  let failed = 0;
  let firstFailure = null;
  async function lane() {
    while (next < end) {
      const failure = await request(next++);
      if (failure !== null) {
        failed += 1;
        if (firstFailure === null) firstFailure = failure;
      }
    }
  }
  await Promise.all(Array.from({ length: connections }, lane));
  return { sent: count, failed, firstFailure };
}

process.on('message', (msg) => {
  if (msg === 'exit') {
    agent.destroy();
    process.disconnect();
  } else if (msg && typeof msg.run === 'number') {
    run(msg.run).then((r) => process.send(r));
  }
});
process.send({ ready: true });
