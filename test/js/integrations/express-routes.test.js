'use strict';

// Route templates in the corners: labels() mounted below the app, routers
// used as route handlers, user labels that are a Map or invalid.

const http = require('node:http');
const { currentLabels } = require('../../..');
const { labels, instrument } = require('../../../lib/integrations/express');

const kState = Symbol.for('customlabels.express.state.v3');

function serve(app, paths) {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', async () => {
      try {
        const out = [];
        for (const p of paths) {
          out.push(
            await new Promise((res, rej) =>
              http.get({ host: '127.0.0.1', port: server.address().port, path: p }, (r) => {
                let body = '';
                r.on('data', (d) => (body += d));
                r.on('end', () => res({ status: r.statusCode, body: body ? JSON.parse(body) : null }));
              }).on('error', rej),
            ),
          );
        }
        server.close();
        resolve(out);
      } catch (err) {
        reject(err);
      }
    });
  });
}

describe.each(['express', 'express4'])('%s', (name) => {
  const express = require(name);
  instrument(express);
  const show = (req, res) => res.json({ labels: currentLabels(), prefix: req[kState]?.prefix ?? '' });

  test('labels() mounted in a router still sees the mounts above it', async () => {
    const app = express();
    const r = express.Router();
    r.use(labels());
    r.get('/v/:id', show);
    app.use('/mnt', r);
    const [res] = await serve(app, ['/mnt/v/1']);
    expect(res.body.labels).toEqual({ method: 'GET', route: '/mnt/v/:id' });
  });

  test('a route\'s own handlers add no mount; a router used as a route handler does', async () => {
    const app = express();
    app.use(labels());
    const api = express.Router();
    api.get('/u/:id', (req, res, next) => next(), show);
    app.use('/api', api);
    const inner = express.Router();
    inner.get('/y', show);
    app.use('/x', inner);
    const [u, y] = await serve(app, ['/api/u/7', '/x/y']);
    expect(u.body).toEqual({ labels: { method: 'GET', route: '/api/u/:id' }, prefix: '/api' });
    expect(y.body).toEqual({ labels: { method: 'GET', route: '/x/y' }, prefix: '/x' });
  });

  test('user labels may be a Map; invalid ones never fail the request', async () => {
    const app = express();
    app.use(labels({ labels: (req) => (req.path === '/bad' ? { tenant: { not: 'a label' } } : new Map([['tenant', 'acme']])) }));
    app.get('/ok', show);
    app.get('/bad', show);
    const [ok, bad] = await serve(app, ['/ok', '/bad']);
    expect(ok.body.labels).toEqual({ method: 'GET', route: '/ok', tenant: 'acme' });
    // The request is served; only what could be published is (the route).
    expect(bad.status).toBe(200);
    expect(bad.body.labels).toEqual({ route: '/bad' });
  });
});
