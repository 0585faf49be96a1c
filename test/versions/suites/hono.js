'use strict';

// Hono in test/versions (test/versions/suites.js says what a suite holds).

const e2e = require('../../js/integrations/e2e/hono');
const { HTTP } = require('./labels');

module.exports = {
  ...e2e,
  published: HTTP,
  run: (entry, env) => e2e.run({ server: '@hono/node-server', env }),
  builders: { hono: (v) => ({ set: { packages: { hono: v, '@hono/node-server': '1.19.19' } } }) },
  hand: (entry) => [
    entry('hono', '4.6.9', 'notFoundHandler and addRoute private'),
    entry('hono', '4.8.0', 'routes carry basePath; hono/route helpers'),
    entry('hono', '4.13.9', 'newest built with esbuild'),
    entry('hono', '4.13.10', 'new bundler: router files required directly, CommonJS exports writable'),
  ],
  notes: {
    'hono@4.0.2': 'app.notFound runs after the middleware returned',
    'hono@4.0.3': 'notFound in the middleware scope',
  },
};
