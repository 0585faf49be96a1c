'use strict';

// A Hono app on @hono/node-server with customlabels/hono: every request
// carries method, route (the matched route's path, app.route() prefixes and
// basePath() included) and tenant. It serves a steady load from a built-in
// client for --seconds (default 30) and prints its pid:
//
//   node examples/hono.js &
//   npm run reader -- sample <pid> --duration 5s --by route
//
// Requires hono and @hono/node-server (npm install hono @hono/node-server).

const { Hono } = require('hono');
const { serve } = require('@hono/node-server');
const { labels } = require('customlabels/hono');

const { steadyLoad, burn, secondsArg } = require('./load');

const seconds = secondsArg();

const app = new Hono();
app.use(labels({ labels: (c) => ({ tenant: c.req.header('x-tenant') ?? 'anonymous' }) }));

const api = new Hono().basePath('/api');
api.get('/users/:id', async (c) => {
  await new Promise((r) => setTimeout(r, 1));
  burn(2);
  return c.json({ id: c.req.param('id') });
});
api.post('/orders', async (c) => {
  const body = await c.req.json();
  burn(1);
  return c.json({ items: body.items.length }, 201);
});
app.route('/', api);

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, ({ port }) => {
  console.log(`pid ${process.pid}: serving on 127.0.0.1:${port} for ${seconds} s`);
  steadyLoad(port, seconds, () => server.close());
});
