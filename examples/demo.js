'use strict';

// A tiny HTTP service whose requests are labelled by a middleware, and a
// client that sends it a few requests. For each request the server prints
// the labels an external profiler would see at each async step.
//
//   npm install && npm run demo

const http = require('node:http');
const fs = require('node:fs/promises');
const { withLabels, currentLabels, strategy } = require('..');

const fmt = (labels) => {
  const entries = Object.entries(labels);
  return entries.length === 0 ? '(no labels)' : entries.map(([k, v]) => `${k}=${v}`).join(' ');
};

// The middleware: everything the handler causes carries these labels.
const labelled = (handler) => (req, res) =>
  withLabels({ route: new URL(req.url, 'http://x').pathname, customer: req.headers['x-customer'] || 'anonymous' }, () =>
    handler(req, res),
  );

async function handler(req, res) {
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
  console.log(`customlabels demo (Node ${process.version}, switching: ${strategy.strategy}, publish: ${strategy.publish})`);
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
  server.close();
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
