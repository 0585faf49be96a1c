'use strict';

// RabbitMQ consumers and producers (`customlabels/amqplib`), amqplib 0.10+,
// promise and callback APIs:
//
//   require('customlabels/amqplib').instrument(require('amqplib'), {
//     routing: false,  // true: exchange and routing_key labels too
//     labels: (msg) => ({ tenant: msg.properties.headers?.tenant }), // optional
//   });
//
// Each message's callback (channel.consume(queue, onMessage)), and
// everything it causes until it is done (awaits, timers, the ack), runs in
// the context consume() was called in, under `queue` (and, with `routing:
// true`, `exchange` and `routing_key`), over the labels the producer
// attached, with options.labels(msg) on top (amqplib/channels.js,
// amqplib/messages.js). publish() and sendToQueue() attach the labels
// current where they are called in one header, `x-customlabels`. Bad label
// data in a message never fails or requeues it: one warning
// (CUSTOMLABELS_MESSAGE_LABELS). Acks, nacks, prefetch and redelivery are
// amqplib's, untouched.

const path = require('node:path');
const errors = require('../../core/errors');
const { byHand } = require('../kit/integration');
const { fileOfExports, versionOfFile } = require('../kit/versions');
const integration = require('./integration');
const { isAmqplib, checkOptions } = require('./patch');
const { HEADER } = require('./messages');

// Patches amqplib's channels (both APIs); `amqplib` is the module
// (require('amqplib') or require('amqplib/callback_api')), `main` the file
// it was loaded from (found in the module cache when not given). The first
// call's options apply, except over customlabels/register's: an app that
// calls instrument() itself takes over with its own. Returns whether these
// options apply (false: nothing (left) to patch, or an amqplib this version
// does not support, with one warning).
function instrument(amqplib, options, main) {
  if (!isAmqplib(amqplib)) throw errors.invalidOption('', "the amqplib module (require('amqplib'))", amqplib);
  if (main !== undefined && (typeof main !== 'string' || !path.isAbsolute(main))) throw errors.invalidOption('main', 'the absolute path amqplib was loaded from', main);
  checkOptions(options);
  const file = main ?? fileOfExports(amqplib);
  const version = file === null ? null : versionOfFile(file, 'amqplib');
  return integration.apply(integration.reach[0], amqplib, { version, file: file ?? undefined, config: byHand(options) }) === true;
}

module.exports = { instrument, HEADER };
