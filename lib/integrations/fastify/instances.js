'use strict';

// customlabels/register and Fastify (fastify/integration.js): the plugin's
// hook on a new root instance, handed register's configuration; a
// registration of the plugin by the app then takes over, merging it.

const { handOver } = require('../kit/takeover');
const { requestLabels } = require('../kit/request-labels');
const { addLabelsHook } = require('./hooks');

function labelInstance({ fastify }, { config }) {
  handOver(fastify, config);
  addLabelsHook(fastify, requestLabels({}, config), true);
}

module.exports = { labelInstance };
