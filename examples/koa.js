'use strict';

// A Koa app with @koa/router and customlabels/koa: every request carries
// method, route (the matched template, router prefixes included) and tenant.
// It serves a steady load from a built-in client for --seconds (default 30)
// and prints its pid:
//
//   node examples/koa.js &
//   npm run reader -- sample <pid> --duration 5s --by route
//
// Requires koa and @koa/router (npm install koa @koa/router).

const { labels } = require('customlabels/koa'); // before defining routes
const Koa = require('koa');
const { Router } = require('@koa/router');

const { steadyLoad, burn, secondsArg } = require('./load');

const seconds = secondsArg();

const app = new Koa();
app.use(labels({ labels: (ctx) => ({ tenant: ctx.get('x-tenant') || 'anonymous' }) }));
app.use(async (ctx, next) => {
  if (!ctx.is('application/json')) return next();
  let body = '';
  for await (const chunk of ctx.req) body += chunk;
  ctx.request.body = JSON.parse(body);
  return next();
});

const api = new Router({ prefix: '/api' });
api.get('/users/:id', async (ctx) => {
  await new Promise((r) => setTimeout(r, 1));
  burn(2);
  ctx.body = { id: ctx.params.id };
});
api.post('/orders', (ctx) => {
  burn(1);
  ctx.status = 201;
  ctx.body = { items: ctx.request.body.items.length };
});
app.use(api.routes()).use(api.allowedMethods());

const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`pid ${process.pid}: serving on 127.0.0.1:${port} for ${seconds} s`);
  steadyLoad(port, seconds, () => server.close());
});
