'use strict';

// An Express 5 or Fastify 5 server whose requests get labels in the given
// mode. Controlled over IPC: 'mark' starts a measurement window, 'report'
// answers with the server CPU time and requests handled since the mark.
//   node bench/http-server.js <express|fastify> <mode> [hello|api]
//
// hello (the default): GET /hello; a middleware (`app.use` / `onRequest`
// hook) runs {route, customer} in one of the modes of ./modes.js.
//
// api: GET /api/users/:id, through a nested router mounted at /api/users
// (Express: app.use('/api', api), api.use('/users', users)) or a plugin
// registered with prefix /api (Fastify), so the integrations do their real
// work (mount tracking, route template). Modes, one middleware registered
// first:
//   none          no instrumentation
//   als-mw        AsyncLocalStorage#run({ method, route }, next), route as
//                 below (the hand-written ALS equivalent)
//   labels-mw     the hand-written withLabels middleware the README showed:
//                 Express withLabels({ method, route: req.path }, next) (the
//                 raw path: an app-level middleware cannot know the template),
//                 Fastify withLabels({ method, route: req.routeOptions.url }, done)
//   labels-const  Express only: withLabels({ method, route: '/api/users/:id' },
//                 next), a template known in advance (one repeating set: what
//                 an app-level withLabels costs at best)
//   integration   customlabels/express labels() / customlabels/fastify plugin
//
// Other frameworks' `api` servers are modules in bench/apps/<framework>.js:
// { modes, request: { method, path, headers, body }, serve(mode, handled) }.

const { createMode } = require('./modes');

const [framework, modeName, app = 'hello'] = process.argv.slice(2);
let requests = 0;

function helloServer() {
  const { run } = createMode(modeName);
  const instrumented = modeName !== 'none' && modeName !== 'loaded';
  if (framework === 'express') {
    const express = require('express');
    const server = express();
    if (instrumented) {
      server.use((req, res, next) => run({ route: req.path, customer: req.get('x-customer') || 'anonymous' }, next));
    }
    server.get('/hello', (req, res) => {
      requests++;
      res.send('hello world');
    });
    return listenExpress(server);
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
  return listenFastify(fastify);
}

function apiServer() {
  const { AsyncLocalStorage } = require('node:async_hooks');
  if (framework === 'express') {
    // The integration patches Router#use: require it before any router exists.
    const integration = modeName === 'integration' ? require('../lib/integrations/express') : null;
    const express = require('express');
    const server = express();
    if (modeName === 'als-mw') {
      const als = new AsyncLocalStorage();
      server.use((req, res, next) => als.run({ method: req.method, route: req.path }, next));
    } else if (modeName === 'labels-mw') {
      const { withLabels } = require('..');
      server.use((req, res, next) => withLabels({ method: req.method, route: req.path }, next));
    } else if (modeName === 'labels-const') {
      const { withLabels } = require('..');
      server.use((req, res, next) => withLabels({ method: req.method, route: '/api/users/:id' }, next));
    } else if (modeName === 'integration') {
      server.use(integration.labels());
    } else if (modeName !== 'none') {
      throw new Error(`unknown api mode ${modeName}`);
    }
    const users = express.Router();
    users.get('/:id', (req, res) => {
      requests++;
      res.send(`user ${req.params.id}`);
    });
    const api = express.Router();
    api.use('/users', users);
    server.use('/api', api);
    return listenExpress(server);
  }
  const fastify = require('fastify')();
  if (modeName === 'als-mw') {
    const als = new AsyncLocalStorage();
    fastify.addHook('onRequest', (req, reply, done) => als.run({ method: req.method, route: req.routeOptions.url }, done));
  } else if (modeName === 'labels-mw') {
    const { withLabels } = require('..');
    fastify.addHook('onRequest', (req, reply, done) => withLabels({ method: req.method, route: req.routeOptions.url }, done));
  } else if (modeName === 'integration') {
    fastify.register(require('../lib/integrations/fastify'));
  } else if (modeName !== 'none') {
    throw new Error(`unknown api mode ${modeName}`);
  }
  fastify.register(
    async (api) => {
      api.get('/users/:id', async (req) => {
        requests++;
        return `user ${req.params.id}`;
      });
    },
    { prefix: '/api' },
  );
  return listenFastify(fastify);
}

function listenExpress(server) {
  return new Promise((resolve) => {
    const s = server.listen(0, '127.0.0.1', () => resolve(s.address().port));
  });
}

async function listenFastify(fastify) {
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

function appServer() {
  if (framework === 'express' || framework === 'fastify') return app === 'api' ? apiServer() : helloServer();
  return Promise.resolve(require(`./apps/${framework}`).serve(modeName, () => requests++));
}

appServer().then((port) => process.send({ port }));
