'use strict';

// Fastify in test/versions (test/versions/suites.js says what a suite holds).

const e2e = require('../../js/integrations/e2e/fastify');
const { HTTP } = require('./labels');

module.exports = {
  ...e2e,
  published: HTTP,
  run: (entry, env) => e2e.run({ module: 'fastify', env }),
  builders: { fastify: (v) => ({ set: { packages: { fastify: v } } }) },
  hand: (entry) => [entry('fastify', '4.10.0', 'request.routeOptions first'), entry('fastify', '4.23.0', 'reading routerPath warns (FSTDEP017)')],
  notes: {
    'fastify@3.29.5': 'it publishes fastify.initialization too',
    'fastify@4.0.0': 'fastify.initialization, request.routerPath (no routeOptions)',
    'fastify@5.0.0': 'routerPath gone; tracing channels',
  },
};
