'use strict';

// amqplib's channels (customlabels/amqplib), patched once per channel
// model (lib/channel_model.js: the promise API; lib/callback_model.js: the
// callback API), with the options that apply (kit/takeover.js: register's
// until the app's own instrument()):
//
// - Channel#consume: each message's callback, and everything it causes,
//   runs in the context consume() was called in (amqplib calls consumers
//   from its connection's socket, in the context connect() ran in, maybe a
//   request's), under its labels (amqplib/messages.js). A null message (the
//   broker cancelled the consumer) runs as it is.
// - Channel#publish (which sendToQueue and ConfirmChannel#publish call):
//   the current labels in the message's header, on copies of the caller's
//   options and headers, unless it has one already.

const { AsyncResource } = require('node:async_hooks');
const { withLabels } = require('../../index');
const { HEADER, headerValue, warn } = require('./messages');

const hasOwn = Object.prototype.hasOwnProperty;

// `holder.settings.messageLabels(queue, msg)`: the options that apply.
function patchChannel(patcher, Channel, holder) {
  const proto = Channel.prototype;
  patcher.wrap(proto, 'consume', (consume) =>
    function consume_(queue, onMessage, ...rest) {
      if (typeof onMessage !== 'function') return consume.call(this, queue, onMessage, ...rest);
      const scope = new AsyncResource('customlabels.amqplib.consume');
      function labelled(msg) {
        if (msg === null || typeof msg !== 'object') return onMessage(msg);
        let labels;
        try {
          labels = holder.settings.messageLabels(queue, msg);
        } catch (err) {
          warn(err && err.message);
          return onMessage(msg);
        }
        return withLabels(labels, () => onMessage(msg));
      }
      function labelledConsumer(msg) {
        return scope.runInAsyncScope(labelled, this, msg);
      }
      return consume.call(this, queue, labelledConsumer, ...rest);
    },
  );
  patcher.wrap(proto, 'publish', (publish) =>
    function publish_(exchange, routingKey, content, options, ...rest) {
      let value;
      try {
        const headers = options !== null && typeof options === 'object' ? options.headers : undefined;
        value = headers !== null && typeof headers === 'object' && hasOwn.call(headers, HEADER) ? null : headerValue();
      } catch (err) {
        warn(err && err.message);
        value = null;
      }
      if (value === null) return publish.call(this, exchange, routingKey, content, options, ...rest);
      const given = options !== null && typeof options === 'object' ? options : {};
      const headers = given.headers !== null && typeof given.headers === 'object' ? given.headers : {};
      // The caller's options seen through (inherited ones too), with headers
      // of our own: neither object is changed.
      const copy = Object.create(given);
      copy.headers = { ...headers, [HEADER]: value };
      return publish.call(this, exchange, routingKey, content, copy, ...rest);
    },
  );
}

module.exports = { patchChannel };
