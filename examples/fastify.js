'use strict';

// A Fastify app with the customlabels plugin: every request carries method,
// route (request.routeOptions.url, prefixes included) and tenant. It serves
// a steady load from a built-in client for --seconds (default 30) and prints
// its pid:
//
//   node examples/fastify.js &
//   npm run reader -- sample <pid> --duration 5s --by route
//
// Requires fastify (npm install fastify).

const Fastify = require('fastify');

const { steadyLoad, burn, secondsArg } = require('./load');

const seconds = secondsArg();

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
  steadyLoad(port, seconds, () => app.close());
});
