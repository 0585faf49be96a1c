'use strict';

// customlabels/register and Fastify (fastify/integration.js): each new root
// instance is handed register's configuration (a registration of the plugin
// by the app then takes over, merging it). Fastify 5 is labelled through
// the tracing channel it publishes around route handlers, with no hook of
// ours in the app (fastify/channels.js); Fastify 4 publishes none (nor does
// 5 on a Node.js without TracingChannel#hasSubscribers: 18), and the
// plugin's onRequest hook is how there: it shows in printRoutes({
// includeHooks: true }) as the app's own would (docs/integrations/
// fastify.md).

const { handOver } = require('../kit/takeover');
const { requestLabels } = require('../kit/request-labels');
const { addLabelsHook } = require('./hooks');
const { followHandlers } = require('./channels');

// Whether Fastify 5's handler channel publishes on this Node.js: Fastify
// asks the TracingChannel's hasSubscribers, which Node.js has from 20.13
// and 22 (on 18, Fastify 5 publishes nothing).
function handlerChannelPublishes() {
  const dc = require('node:diagnostics_channel');
  return typeof dc.tracingChannel === 'function' && 'hasSubscribers' in dc.tracingChannel('customlabels.probe');
}

function labelInstance({ fastify }, { config }) {
  handOver(fastify, config);
  if (Number(String(fastify.version).split('.')[0]) >= 5 && handlerChannelPublishes()) followHandlers();
  else addLabelsHook(fastify, requestLabels({}, config), true);
}

module.exports = { labelInstance };
