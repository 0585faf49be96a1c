'use strict';

// gRPC clients (customlabels/grpc): a call's callbacks, stream events, write
// callbacks and awaits run under the labels of the scope that made it.
// grpc-js runs them from its connection's callbacks, in the context of
// whichever call opened the connection, so every call's listener is bound
// to its caller's context (Channel#createCall, below all interceptors);
// with forwarding on, the call's metadata carries the caller's labels
// (grpc/forwarding.js).

const { AsyncResource } = require('node:async_hooks');
const { forwardedPayload, withPayload } = require('./forwarding');

// A listener whose callbacks run in `scope`.
function listenerIn(scope, listener) {
  if (listener === null || typeof listener !== 'object') return listener;
  const bound = Object.create(listener);
  for (const name of ['onReceiveMetadata', 'onReceiveMessage', 'onReceiveStatus']) {
    const fn = listener[name];
    if (typeof fn === 'function') bound[name] = (...args) => scope.runInAsyncScope(fn, listener, ...args);
  }
  return bound;
}

// `holder.settings.forward`: whether calls forward (kit/takeover.js).
function patchChannel(patcher, Channel, holder) {
  patcher.wrap(Channel.prototype, 'createCall', (createCall) =>
    function createCall_(...args) {
      const call = createCall.apply(this, args);
      if (call === null || typeof call !== 'object' || typeof call.start !== 'function') return call;
      // Made where the client method was called: the caller's context.
      const scope = new AsyncResource('customlabels.grpc.client');
      const payload = holder.settings.forward ? forwardedPayload() : null;
      const start = call.start;
      call.start = function start_(metadata, listener) {
        return start.call(this, withPayload(metadata, payload), listenerIn(scope, listener));
      };
      // A message's write callback (call.write(msg, cb), 'drain') is called
      // from the HTTP/2 stream too.
      const send = call.sendMessageWithContext;
      if (typeof send === 'function') {
        call.sendMessageWithContext = function sendMessageWithContext_(context, message) {
          if (context !== null && typeof context === 'object' && typeof context.callback === 'function') {
            context = { ...context, callback: scope.bind(context.callback) };
          }
          return send.call(this, context, message);
        };
      }
      return call;
    },
  );
}

module.exports = { patchChannel };
