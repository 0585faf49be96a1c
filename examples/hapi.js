'use strict';

// A hapi server with the customlabels/hapi plugin: every request carries
// method, route (request.route.path, plugin prefixes included) and tenant
// through its whole lifecycle. It serves a steady load from a built-in client
// for --seconds (default 30) and prints its pid:
//
//   node examples/hapi.js &
//   npm run reader -- sample <pid> --duration 5s --by route
//
// Requires @hapi/hapi (npm install @hapi/hapi).

const Hapi = require('@hapi/hapi');
const { plugin } = require('customlabels/hapi');

const { steadyLoad, burn, secondsArg } = require('./load');

const seconds = secondsArg();

const api = {
  name: 'api',
  register(server) {
    server.route({
      method: 'GET',
      path: '/users/{id}',
      handler: async (request) => {
        await new Promise((r) => setTimeout(r, 1));
        burn(2);
        return { id: request.params.id };
      },
    });
    server.route({
      method: 'POST',
      path: '/orders',
      handler: (request, h) => {
        burn(1);
        return h.response({ items: request.payload.items.length }).code(201);
      },
    });
  },
};

async function main() {
  const server = Hapi.server({ port: 0, host: '127.0.0.1' });
  await server.register({ plugin, options: { labels: (request) => ({ tenant: request.headers['x-tenant'] ?? 'anonymous' }) } });
  await server.register(api, { routes: { prefix: '/api' } });
  await server.start();
  console.log(`pid ${process.pid}: serving on 127.0.0.1:${server.info.port} for ${seconds} s`);
  steadyLoad(server.info.port, seconds, () => server.stop());
}

main();
