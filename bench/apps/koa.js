'use strict';

// Koa 3 + @koa/router for the integrations suite: GET /api/users/:id through
// a router with prefix /api. Modes, one app middleware registered first (so
// each labels the whole request, as the integration does):
//   none          no instrumentation
//   als-mw        AsyncLocalStorage#run({ method, route: ctx.path }, next)
//   labels-mw     the hand-written withLabels middleware:
//                 withLabels({ method, route: ctx.path }, next) (the raw path:
//                 an app middleware cannot know the template)
//   labels-const  withLabels({ method, route: '/api/users/:id' }, next): a
//                 template known in advance (one repeating set: the best case)
//   integration   customlabels/koa labels()

const { AsyncLocalStorage } = require('node:async_hooks');

module.exports = {
  modes: ['none', 'als-mw', 'labels-mw', 'labels-const', 'integration'],
  request: { path: '/api/users/{i}' },
  serve(mode, handled) {
    const integration = mode === 'integration' ? require('../../lib/integrations/koa') : null; // before any route
    const Koa = require('koa');
    const { Router } = require('@koa/router');
    const app = new Koa();
    if (mode === 'als-mw') {
      const als = new AsyncLocalStorage();
      app.use((ctx, next) => als.run({ method: ctx.method, route: ctx.path }, next));
    } else if (mode === 'labels-mw') {
      const { withLabels } = require('../..');
      app.use((ctx, next) => withLabels({ method: ctx.method, route: ctx.path }, next));
    } else if (mode === 'labels-const') {
      const { withLabels } = require('../..');
      app.use((ctx, next) => withLabels({ method: ctx.method, route: '/api/users/:id' }, next));
    } else if (mode === 'integration') {
      app.use(integration.labels());
    } else if (mode !== 'none') {
      throw new Error(`unknown koa mode ${mode}`);
    }
    const api = new Router({ prefix: '/api' });
    api.get('/users/:id', (ctx) => {
      handled();
      ctx.body = `user ${ctx.params.id}`;
    });
    app.use(api.routes());
    return new Promise((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve(server.address().port));
    });
  },
};
