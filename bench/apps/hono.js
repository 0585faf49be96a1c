'use strict';

// Hono 4 on @hono/node-server for the integrations suite: GET
// /api/users/:id of a sub-app with basePath /api. Modes, one app middleware
// registered first (so each labels the whole request, as the integration
// does):
//   none          no instrumentation
//   als-mw        AsyncLocalStorage#run({ method, route: c.req.path }, next)
//   labels-mw     the hand-written withLabels middleware:
//                 withLabels({ method, route: c.req.path }, next) (the raw
//                 path: c.req.routePath is '/*' in an app middleware)
//   labels-const  withLabels({ method, route: '/api/users/:id' }, next): a
//                 template known in advance (one repeating set: the best case)
//   integration   customlabels/hono labels()

const { AsyncLocalStorage } = require('node:async_hooks');

module.exports = {
  modes: ['none', 'als-mw', 'labels-mw', 'labels-const', 'integration'],
  request: { path: '/api/users/{i}' },
  serve(mode, handled) {
    const { Hono } = require('hono');
    const { serve } = require('@hono/node-server');
    const app = new Hono();
    if (mode === 'als-mw') {
      const als = new AsyncLocalStorage();
      app.use((c, next) => als.run({ method: c.req.method, route: c.req.path }, next));
    } else if (mode === 'labels-mw') {
      const { withLabels } = require('../..');
      app.use((c, next) => withLabels({ method: c.req.method, route: c.req.path }, next));
    } else if (mode === 'labels-const') {
      const { withLabels } = require('../..');
      app.use((c, next) => withLabels({ method: c.req.method, route: '/api/users/:id' }, next));
    } else if (mode === 'integration') {
      app.use(require('../../lib/integrations/hono').labels());
    } else if (mode !== 'none') {
      throw new Error(`unknown hono mode ${mode}`);
    }
    const api = new Hono().basePath('/api');
    api.get('/users/:id', (c) => {
      handled();
      return c.text(`user ${c.req.param('id')}`);
    });
    app.route('/', api);
    return new Promise((resolve) => serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)));
  },
};
