'use strict';

// customlabels/amqplib in the table of integrations (lib/integrations/index.js).
// Consumers label their messages (with CUSTOMLABELS_LABELS as their own),
// producers attach the current labels; the app's own instrument() takes
// over with its options (amqplib/patch.js).

const { defineIntegration } = require('../kit/integration');

const PACKAGE = 'amqplib';
const patch = () => require('./patch');
const reach = (requests) => ({ kind: 'module', package: PACKAGE, ...(requests ? { requests } : {}), patch: (amqplib, context) => patch().patchAmqplib(amqplib, context), unpatch: () => patch().unpatchAmqplib() });
const model = 'amqplib/lib/channel_model.js';
// The double of a method of the promise API's Channel: each channel's own,
// off the class (ConfirmChannel keeps its own publish, which calls it).
const ownMethod = (name, signature, extra = []) => ({
  edits: [
    [model, `  ${name}(${signature}) {`, `  ${name}Moved(${signature}) {`],
    [model, "    super(connection);\n    this.on('delivery'", `    super(connection);\n    this.${name} ??= this.${name}Moved;\n    this.on('delivery'`],
    ...extra,
  ],
});
const channelMethod = (name, signature, why, extra) => ({
  package: PACKAGE,
  of: 'model',
  name: `Channel#${name}`,
  why,
  check: ({ Channel }) => typeof Channel.prototype[name] === 'function',
  double: ownMethod(name, signature, extra),
});

const integration = defineIntegration({
  name: 'amqplib',
  title: 'RabbitMQ (amqplib)',
  subpath: './amqplib',
  labels: ['queue', 'exchange', 'routing_key'],
  packages: { [PACKAGE]: '>=0.10.0 <3' },
  internals: [
    {
      package: PACKAGE,
      of: 'model',
      name: 'lib/channel_model.js, lib/callback_model.js',
      why: 'the Channel classes live there; amqplib exports neither (1.2+ refuses them by name, so they are loaded by path beside its main file)',
      check: ({ Channel }) => typeof Channel === 'function',
      double: { move: ['amqplib/lib/channel_model.js', 'amqplib/lib/channel_model_moved.js'], edits: [['amqplib/channel_api.js', './lib/channel_model', './lib/channel_model_moved']] },
    },
    channelMethod('consume', 'queue, callback, options', "amqplib calls a consumer from its connection's socket, in the context connect() ran in; no channel or hook runs around a delivery"),
    channelMethod('publish', 'exchange, routingKey, content, options', 'where sendToQueue and ConfirmChannel#publish of both APIs end; no hook adds a header', [[model, 'super.publish(exchange', 'super.publishMoved(exchange']]),
  ],
  reach: [reach(), reach(['amqplib/callback_api'])],
});

module.exports = integration;
