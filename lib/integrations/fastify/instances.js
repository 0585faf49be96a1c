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
const { followHandlers, unfollowHandlers } = require('./channels');

// Whether Fastify 5's handler channel publishes on this Node.js: Fastify
// asks the TracingChannel's hasSubscribers, which Node.js has from 20.13
// and 22 (on 18, Fastify 5 publishes nothing).
function handlerChannelPublishes() {
  const dc = require('node:diagnostics_channel');
  return typeof dc.tracingChannel === 'function' && 'hasSubscribers' in dc.tracingChannel('customlabels.probe');
}

// Register's hooks label while this is the patch's generation (unpatch()
// ends it: hooks stay on their instances, which end with them).
let generation = 0;

function patchInstance(message, { config }) {
  const fastify = message !== null && typeof message === 'object' ? message.fastify : undefined;
  if (fastify === null || typeof fastify !== 'object') return;
  handOver(fastify, config);
  if (Number(String(fastify.version).split('.')[0]) >= 5 && handlerChannelPublishes()) {
    followHandlers();
    return;
  }
  const mine = generation;
  addLabelsHook(fastify, requestLabels({}, config), () => mine === generation);
}

function unpatchInstances() {
  generation += 1;
  unfollowHandlers();
}

module.exports = { patchInstance, unpatchInstances };
