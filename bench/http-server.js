'use strict';

// A hello-world server (Express 5 or Fastify 5) whose requests get
// {route, customer} from a middleware in the given mode. Controlled over IPC:
// 'mark' starts a measurement window, 'report' answers with the server CPU
// time and requests handled since the mark.
//   node bench/http-server.js <express|fastify> <mode>

const { createMode } = require('./modes');

const [framework, modeName] = process.argv.slice(2);
const { run } = createMode(modeName);
const instrumented = modeName !== 'none' && modeName !== 'loaded';
let requests = 0;

async function start() {
  if (framework === 'express') {
    const express = require('express');
    const app = express();
    if (instrumented) {
      app.use((req, res, next) => run({ route: req.path, customer: req.get('x-customer') || 'anonymous' }, next));
    }
    app.get('/hello', (req, res) => {
      requests++;
      res.send('hello world');
    });
    return new Promise((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve(server.address().port));
    });
  }
  const fastify = require('fastify')();
  if (instrumented) {
    fastify.addHook('onRequest', (req, reply, done) =>
      run({ route: req.routeOptions.url, customer: req.headers['x-customer'] || 'anonymous' }, done),
    );
  }
  fastify.get('/hello', async () => {
    requests++;
    return 'hello world';
  });
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  return fastify.server.address().port;
}

let mark;
process.on('message', (msg) => {
  if (msg === 'mark') {
    mark = { cpu: process.cpuUsage(), requests };
    process.send({ marked: true });
  } else if (msg === 'report') {
    const cpu = process.cpuUsage(mark.cpu);
    process.send({ cpuMicros: cpu.user + cpu.system, requests: requests - mark.requests });
  } else if (msg === 'exit') {
    process.exit(0);
  }
});

start().then((port) => process.send({ port }));
