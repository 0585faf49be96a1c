'use strict';

// A tiny HTTP service whose requests are labelled by a middleware, and a
// client that sends it a few requests. For each request the server prints
// the labels an external profiler would see at each async step.
//
//   npm install && npm run demo
//
// With --serve [seconds] it then keeps serving a steady load in which each
// customer costs a different amount of CPU, so you can look at it from
// outside: npm run reader -- inspect <pid> / npm run reader -- sample <pid>
// (`npx customlabels ...` where the package is installed as a dependency).
//
// It also reads itself from outside, as a profiler would: inside one labelled
// request it runs the reader on its own process (which stops the thread, reads
// its thread pointer and memory) and prints what the reader saw, or why it
// could not (the reader needs root or CAP_SYS_PTRACE).

const http = require('node:http');
const path = require('node:path');
const fs = require('node:fs/promises');
const { spawnSync } = require('node:child_process');
const { withLabels, currentLabels, strategy } = require('..');

const reader = path.join(__dirname, '..', 'bin', 'customlabels.js');
const READER_EXIT = { 3: 'no such process', 4: 'not permitted to ptrace', 5: 'addon not loaded' };

const fmt = (labels) => {
  const entries = Object.entries(labels);
  return entries.length === 0 ? '(no labels)' : entries.map(([k, v]) => `${k}=${v}`).join(' ');
};

// The middleware: everything the handler causes carries these labels.
const labelled = (handler) => (req, res) =>
  withLabels({ route: new URL(req.url, 'http://x').pathname, customer: req.headers['x-customer'] || 'anonymous' }, () =>
    handler(req, res),
  );

// CPU each customer's requests burn in --serve mode (ms per request).
const cost = { acme: 1, globex: 2, initech: 3 };
const burn = (ms) => {
  const end = process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  while (process.hrtime.bigint() < end);
};

// Runs the reader on this thread while it is inside the request's scope: this
// thread blocks in spawnSync, so the reader sees exactly this request's labels.
function readSelf() {
  const out = spawnSync(process.execPath, [reader, 'inspect', String(process.pid), '--tid', String(process.pid)], {
    encoding: 'utf8',
    timeout: 20000,
  });
  return { code: out.status, text: (out.stdout + out.stderr).trim() };
}

async function handler(req, res) {
  if (req.headers['x-read-self']) {
    await null;
    res.end(JSON.stringify(readSelf()));
    return;
  }
  if (req.headers['x-load']) {
    await null;
    burn(cost[req.headers['x-customer']] || 0);
    res.end();
    return;
  }
  const steps = [['handler', currentLabels()]];
  await fs.stat(__filename);
  steps.push(['after fs.stat', currentLabels()]);
  await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 10)));
  steps.push(['after setTimeout', currentLabels()]);
  await withLabels({ phase: 'render' }, async () => {
    await null;
    steps.push(['in render phase', currentLabels()]);
  });
  res.end(JSON.stringify(steps));
}

async function main() {
  const server = http.createServer(labelled(handler));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const { strategy: how, publish } = strategy();
  console.log(`customlabels demo (Node ${process.version}, switching: ${how}, publish: ${publish})`);
  console.log(`outside any request: ${fmt(currentLabels())}\n`);

  const requests = [
    ['acme', '/checkout'],
    ['globex', '/search'],
    ['initech', '/checkout'],
    ['acme', '/cart'],
  ];
  const responses = await Promise.all(
    requests.map(
      ([customer, route]) =>
        new Promise((resolve, reject) => {
          http
            .get({ host: '127.0.0.1', port, path: route, headers: { 'x-customer': customer } }, (res) => {
              let body = '';
              res.on('data', (d) => (body += d));
              res.on('end', () => resolve({ customer, route, steps: JSON.parse(body) }));
            })
            .on('error', reject);
        }),
    ),
  );
  for (const { customer, route, steps } of responses) {
    console.log(`GET ${route} for ${customer}, handled concurrently with the others:`);
    for (const [where, labels] of steps) console.log(`  ${where.padEnd(18)} ${fmt(labels)}`);
  }
  console.log(`\nafter all requests: ${fmt(currentLabels())}`);
  await showReader(port);
  const serve = process.argv.indexOf('--serve');
  if (serve === -1) {
    server.close();
    return;
  }
  const seconds = Number(process.argv[serve + 1]) || 60;
  console.log(`\nserving load for ${seconds} s; from another terminal (as root):`);
  console.log(`  npm run reader -- sample ${process.pid} --duration 5s --by customer   # where the CPU went`);
  console.log(`  npm run reader -- inspect ${process.pid}   # one snapshot: a thread between requests shows (none)`);
  await load(port, seconds);
  server.close();
}

// One more request, whose handler runs the reader on this process: what an
// external profiler sees while that request runs.
async function showReader(port) {
  const { code, text } = await new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/checkout', headers: { 'x-customer': 'acme', 'x-read-self': '1' } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve(JSON.parse(body)));
      })
      .on('error', reject);
  });
  console.log('\nwhat a profiler sees from outside, read by the customlabels reader during GET /checkout for acme:');
  if (code === 0) {
    console.log(text.replace(/^/gm, '  '));
    return;
  }
  const why = READER_EXIT[code] ?? (code === null ? 'timed out' : `exit ${code}`);
  console.log(`  the reader could not read this process (${why}):`);
  console.log(text.replace(/^/gm, '    '));
  if (code === 4) {
    console.log('  it stops threads with ptrace: run the demo as root (sudo npm run demo), or give node CAP_SYS_PTRACE');
    console.log('  (sudo setcap cap_sys_ptrace+ep "$(command -v node)"), or allow it with');
    console.log('  sudo sysctl kernel.yama.ptrace_scope=0 when Yama is what refused');
  }
}

// Sequential requests from a few clients, customers in turn.
async function load(port, seconds) {
  const agent = new http.Agent({ keepAlive: true });
  const end = Date.now() + seconds * 1000;
  const client = async (customer) => {
    while (Date.now() < end) {
      await new Promise((resolve, reject) =>
        http
          .get({ host: '127.0.0.1', port, agent, path: '/work', headers: { 'x-customer': customer, 'x-load': '1' } }, (res) =>
            res.resume().on('end', resolve),
          )
          .on('error', reject),
      );
    }
  };
  await Promise.all(Object.keys(cost).map(client));
  agent.destroy();
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
