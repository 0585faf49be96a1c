'use strict';

// @hapi/hapi 21 for the integrations suite: GET /api/users/{id}, a route of
// a plugin registered with prefix /api. Modes:
//   none         no instrumentation
//   als-mw       the handler runs in AsyncLocalStorage#run({ method, route })
//   labels-mw    the hand-written equivalent: the handler runs in
//                withLabels({ method, route: request.route.path })
//   integration  the customlabels/hapi plugin

const { AsyncLocalStorage } = require('node:async_hooks');

module.exports = {
  modes: ['none', 'als-mw', 'labels-mw', 'integration'],
  request: { path: '/api/users/{i}' },
  async serve(mode, handled) {
    const Hapi = require('@hapi/hapi');
    const server = Hapi.server({ port: 0, host: '127.0.0.1' });
    let wrap = (fn) => fn;
    if (mode === 'als-mw') {
      const als = new AsyncLocalStorage();
      wrap = (fn) => (request, h) => als.run({ method: request.method, route: request.route.path }, () => fn(request, h));
    } else if (mode === 'labels-mw') {
      const { withLabels } = require('../..');
      wrap = (fn) => (request, h) => withLabels({ method: request.method.toUpperCase(), route: request.route.path }, () => fn(request, h));
    } else if (mode === 'integration') {
      await server.register({ plugin: require('../../lib/integrations/hapi').plugin });
    } else if (mode !== 'none') {
      throw new Error(`unknown hapi mode ${mode}`);
    }
    const api = {
      name: 'api',
      register(s) {
        s.route({
          method: 'GET',
          path: '/users/{id}',
          handler: wrap((request) => {
            handled();
            return `user ${request.params.id}`;
          }),
        });
      },
    };
    await server.register(api, { routes: { prefix: '/api' } });
    await server.start();
    return server.info.port;
  },
};
