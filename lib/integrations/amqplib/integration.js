'use strict';

// customlabels/amqplib in the table of integrations (lib/integrations/index.js).

const path = require('node:path');
const { defineIntegration } = require('../kit/integration');

const PACKAGE = 'amqplib';

// Consumers label their messages (with CUSTOMLABELS_LABELS as their own),
// producers attach the current labels; the app's own instrument() takes
// over with its options.
function patch(amqplib, { version, file, config }) {
  if (amqplib === null || typeof amqplib !== 'object' || typeof amqplib.connect !== 'function') return;
  const labels = config.labels;
  require('./patch').patchAmqplib(integration, amqplib, Object.keys(labels).length > 0 ? { labels: () => labels } : undefined, typeof file === 'string' && path.isAbsolute(file) ? file : undefined, true, version);
}

const integration = defineIntegration({
  name: 'amqplib',
  title: 'RabbitMQ (amqplib)',
  subpath: './amqplib',
  packages: { [PACKAGE]: '>=0.10.0 <3' },
  internals: [
    { package: PACKAGE, name: 'lib/channel_model.js, lib/callback_model.js', why: 'the Channel classes live there; amqplib exports neither (1.2+ refuses them by name, so they are loaded by path beside its main file)' },
    { package: PACKAGE, name: 'Channel#consume', why: "amqplib calls a consumer from its connection's socket, in the context connect() ran in; no channel or hook runs around a delivery" },
    { package: PACKAGE, name: 'Channel#publish', why: 'where sendToQueue and ConfirmChannel#publish of both APIs end; no hook adds a header' },
  ],
  reach: [
    { kind: 'module', package: PACKAGE, patch },
    { kind: 'module', package: PACKAGE, requests: ['amqplib/callback_api'], patch },
  ],
  unpatch: () => require('./patch').unpatchAmqplib(),
});

module.exports = integration;
