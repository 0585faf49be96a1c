'use strict';

// A Fastify app with the customlabels plugin: every request carries method,
// route (request.routeOptions.url, prefixes included) and tenant. It serves
// a steady load from a built-in client for --seconds (default 30) and prints
// its pid:
//
//   node examples/fastify.js &
//   npx customlabels sample <pid> --duration 5s --by route
//
// Requires fastify (npm install fastify).

const http = require('node:http');
const Fastify = require('fastify');

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 30;
const burn = (ms) => {
  const end = process.hrtime.bigint() + BigInt(ms * 1e6);
  while (process.hrtime.bigint() < end);
};

const app = Fastify();
app.register(require('customlabels/fastify'), { labels: (request) => ({ tenant: request.headers['x-tenant'] ?? 'anonymous' }) });
app.register(
  async (api) => {
    api.get('/users/:id', async (request) => {
      await new Promise((r) => setTimeout(r, 1));
      burn(2);
      return { id: request.params.id };
    });
    api.post('/orders', async (request, reply) => {
      burn(1);
      reply.code(201);
      return { items: request.body.items.length };
    });
  },
  { prefix: '/api' },
);

app.listen({ port: 0, host: '127.0.0.1' }).then(() => {
  const { port } = app.server.address();
  console.log(`pid ${process.pid}: serving on 127.0.0.1:${port} for ${seconds} s`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const tenants = ['acme', 'globex', 'initech'];
  const stopAt = Date.now() + seconds * 1000;
  let n = 0;
  const loop = () => {
    if (Date.now() > stopAt) return;
    const i = n++;
    const post = i % 3 === 0;
    const req = http.request(
      { host: '127.0.0.1', port, agent, method: post ? 'POST' : 'GET', path: post ? '/api/orders' : `/api/users/${i}`,
        headers: { 'x-tenant': tenants[i % 3], 'content-type': 'application/json' } },
      (res) => res.resume().on('end', loop),
    );
    req.end(post ? JSON.stringify({ items: [1, 2, 3] }) : undefined);
  };
  for (let k = 0; k < 4; k++) loop();
  setTimeout(() => {
    agent.destroy();
    app.close();
  }, seconds * 1000 + 100);
});
