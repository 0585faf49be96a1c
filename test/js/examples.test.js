'use strict';

// The README's framework examples run as written (`node examples/<name>.js`,
// importing customlabels by its package name) and a profiler sampling them
// from outside attributes their CPU to the route templates (GraphQL: the
// operations; gRPC: the methods; BullMQ and RabbitMQ: the tenants whose
// messages they process) they serve.

const { spawn, execFile } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');
const { root, readerPath, testIf } = require('./helpers');

const major = Number(process.versions.node.split('.')[0]);
// @koa/router 15 and @hono/node-server 2 (what `npm install` gives today) need Node.js >= 20.
// @apollo/server 5 too.
const needs20 = new Set(['koa', 'hono', 'graphql']);

const templates = {
  express: ['/api/users/:id', '/api/orders'],
  fastify: ['/api/users/:id', '/api/orders'],
  koa: ['/api/users/:id', '/api/orders'],
  hapi: ['/api/users/{id}', '/api/orders'],
  hono: ['/api/users/:id', '/api/orders'],
  graphql: ['GetUser', 'PlaceOrder'],
  bullmq: ['acme', 'globex', 'initech'],
  grpc: ['GetItem', 'WatchStock'],
  amqplib: ['acme', 'globex', 'initech'],
};
// The label samples are grouped by.
const byLabel = (name) => ({ graphql: 'graphql.operation', bullmq: 'tenant', grpc: 'rpc.method', amqplib: 'tenant' })[name] ?? 'route';
// examples/bullmq.js starts a redis-server from PATH; examples/amqplib.js
// connects to AMQP_URL: a private broker of the test's.
const redis = require('./integrations/redis-server');
const rabbitmq = require('./integrations/rabbitmq-server');
const needs = {
  bullmq: [redis.redisServerPath !== null, redis.missingReason],
  amqplib: [rabbitmq.rabbitmqServerPath !== null, rabbitmq.missingReason],
};

let broker = null;
afterAll(() => broker?.stop());

function sampleExample(name, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'examples', `${name}.js`), '--seconds', '3'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let rows = null;
    child.stderr.on('data', (d) => (stderr += d));
    readline.createInterface({ input: child.stdout }).once('line', () => {
      setTimeout(() => {
        execFile(readerPath, ['sample', String(child.pid), '--duration', '1s', '--by', byLabel(name), '--json'], { encoding: 'utf8' }, (err, stdout) => {
          if (err) reject(err);
          rows = stdout.trim().split('\n').map((l) => JSON.parse(l));
        });
      }, 300);
    });
    child.on('close', (code) => resolve({ code, stderr, rows }));
  });
}

describe.each(Object.keys(templates))('examples/%s.js', (name) => {
  const [runs, reason] = needs[name] ?? [!needs20.has(name) || major >= 20, `examples/${name}.js uses packages that need Node.js >= 20`];
  testIf(runs, reason)(`examples/${name}.js serves its load, and samples of its thread show its route templates`, async () => {
    let env = process.env;
    if (name === 'amqplib') {
      broker = await rabbitmq.startRabbitmq();
      env = { ...process.env, AMQP_URL: broker.url };
    }
    const { code, stderr, rows } = await sampleExample(name, env);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const routes = new Set(rows.filter((r) => r.value !== null && r.samples > 0).map((r) => r.value));
    // The handlers burn 2 ms (users) and 1 ms (orders) per request.
    expect([...routes]).toEqual(expect.arrayContaining([templates[name][0]]));
    for (const route of routes) expect([...templates[name], '(unmatched)']).toContain(route);
  }, 120000);
});
