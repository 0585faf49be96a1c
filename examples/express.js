'use strict';

// An Express app labelled by customlabels/express: every request carries
// method, route (the route template) and tenant. It serves a steady load
// from a built-in client for --seconds (default 30) and prints its pid, so
// you can watch it from outside:
//
//   node examples/express.js &
//   npx customlabels sample <pid> --duration 5s --by route
//
// Requires express (npm install express).

const http = require('node:http');
const express = require('express');
const { labels } = require('customlabels/express');

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 30;
const burn = (ms) => {
  const end = process.hrtime.bigint() + BigInt(ms * 1e6);
  while (process.hrtime.bigint() < end);
};

const app = express();
app.use(labels({ labels: (req) => ({ tenant: req.get('x-tenant') ?? 'anonymous' }) }));
const users = express.Router();
users.get('/:id', async (req, res) => {
  await new Promise((r) => setTimeout(r, 1));
  burn(2); // CPU attributed to route=/api/users/:id
  res.json({ id: req.params.id });
});
const api = express.Router();
api.use('/users', users);
api.post('/orders', express.json(), (req, res) => {
  burn(1);
  res.status(201).json({ items: req.body.items.length });
});
app.use('/api', api);

const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
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
    server.close();
  }, seconds * 1000 + 100);
});
