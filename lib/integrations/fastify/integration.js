'use strict';

// customlabels/fastify in the table of integrations (lib/integrations/index.js):
// with register, every new root instance, from the diagnostics_channel
// Fastify publishes for this ('fastify.initialization', Fastify 4.0+), is
// handed register's configuration and labelled through Fastify 5's handler
// channel, or, on Fastify 4, the plugin's hook (fastify/instances.js); a
// registration of the plugin by the app then takes over, merging it. Public
// hooks and channels alone: no private name.

const { defineIntegration } = require('../kit/integration');

const PACKAGE = 'fastify';
const instances = () => require('./instances');

const integration = defineIntegration({
  name: 'fastify',
  title: 'Fastify',
  subpath: './fastify',
  labels: ['method', 'route'],
  packages: { [PACKAGE]: '4.x || 5.x' },
  internals: [],
  reach: [
    {
      kind: 'channel',
      package: PACKAGE,
      channel: 'fastify.initialization',
      versionOf: (message) => (message !== null && typeof message === 'object' && message.fastify !== null && typeof message.fastify === 'object' && typeof message.fastify.version === 'string' ? message.fastify.version : null),
      patch: (message, context) => instances().patchInstance(message, context),
      unpatch: () => instances().unpatchInstances(),
    },
  ],
});

module.exports = integration;
