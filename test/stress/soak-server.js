'use strict';

// The soak's server: Fastify on 127.0.0.1 opening one scope per request in an
// onRequest hook, with labels that never repeat (the request id) and labels
// that do (route, tenant from the x-tenant header). Every request checks at
// each step (hooks, after every await, in its timer) that what it sees is
// exactly its own labels, and counts mismatches.
//   node test/stress/soak-server.js <none|als|floor|labels>
// Controlled over IPC: {sample: true, gc} answers with a memory sample
// (memory.js; after two forced collections when `gc` and --expose-gc) and
// the counters;
// 'exit' closes the server.

const { setTimeout: sleep, setImmediate: immediate } = require('node:timers/promises');
const { createScopes } = require('./scopes');
const { sampleMemory } = require('./memory');

const mode = process.argv[2];
const scopes = createScopes(mode);
const fastify = require('fastify')({ logger: false });

let requests = 0;
let checks = 0;
let mismatches = 0;
const firstMismatches = [];

function check(request, where) {
  checks += 1;
  const seen = scopes.current();
  if (scopes.matches(request.expected, seen)) return;
  mismatches += 1;
  if (firstMismatches.length < 5) {
    firstMismatches.push({ where, expected: request.expected, seen: mode === 'labels' ? seen : '(another store)' });
  }
}

fastify.addHook('onRequest', (request, reply, done) => {
  request.expected = {
    route: request.routeOptions.url || 'unknown',
    tenant: request.headers['x-tenant'] || 'anonymous',
    request: request.id, // never repeats
  };
  scopes.run(request.expected, () => {
    check(request, 'onRequest');
    done();
  });
});
fastify.addHook('preHandler', (request, reply, done) => {
  check(request, 'preHandler');
  done();
});
fastify.addHook('onSend', async (request, reply, payload) => {
  check(request, 'onSend');
  return payload;
});
fastify.addHook('onResponse', (request, reply, done) => {
  check(request, 'onResponse');
  requests += 1;
  done();
});

// A request's own work: an await chain through promises, the check queue and
// a timer, with a check after each step and in the timer callback.
async function work(request) {
  await null;
  check(request, 'after await null');
  await immediate();
  check(request, 'after setImmediate');
  await new Promise((resolve) =>
    setTimeout(() => {
      check(request, 'timer callback');
      resolve();
    }, 1),
  );
  check(request, 'after timer');
  await sleep(0);
  check(request, 'after timers/promises');
}

fastify.get('/orders/:id', async (request) => {
  check(request, 'handler');
  await work(request);
  return { id: request.params.id };
});

// A nested scope: inside, the request's labels plus step=render; after it,
// exactly the request's labels again.
fastify.get('/report', async (request) => {
  check(request, 'handler');
  const outer = request;
  const inner = { expected: { ...request.expected, step: 'render' } };
  await scopes.run(mode === 'labels' ? { step: 'render' } : inner.expected, async () => {
    check(inner, 'nested scope');
    await work(inner);
  });
  check(outer, 'after nested scope');
  return 'report';
});

fastify.get('/health', (request, reply) => {
  check(request, 'sync handler');
  reply.send('ok');
});

async function sample(gc) {
  return { memory: await sampleMemory(gc), requests, checks, mismatches, firstMismatches };
}

process.on('message', (msg) => {
  if (msg === 'exit') {
    fastify.close().then(() => process.disconnect());
  } else if (msg && msg.sample) {
    sample(msg.gc).then((s) => process.send(s));
  }
});

fastify.listen({ port: 0, host: '127.0.0.1' }).then(() => {
  process.send({ port: fastify.server.address().port, pid: process.pid, version: process.version });
});
