'use strict';

// An Express app labelled by customlabels/express: every request carries
// method, route (the route template) and tenant. It serves a steady load
// from a built-in client for --seconds (default 30) and prints its pid, so
// you can watch it from outside:
//
//   node examples/express.js &
//   npm run reader -- sample <pid> --duration 5s --by route
//
// Requires express (npm install express).

const express = require('express');
const { labels } = require('customlabels/express');

const { steadyLoad, burn, secondsArg } = require('./load');

const seconds = secondsArg();

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
  steadyLoad(port, seconds, () => server.close());
});
