'use strict';

// The patch of a @grpc/grpc-js module (customlabels/grpc): its servers
// (grpc/server.js) and clients (grpc/client.js), once per copy of grpc-js,
// with the options that apply (kit/module-options.js: register's until the
// app's own instrument()). One whose Server#register, Server#addService or
// Channel#createCall is gone is left unpatched with one warning.

const { ModuleOptions, readOptions, optionsOf } = require('../kit/module-options');
const { callLabels } = require('./forwarding');
const { patchServer } = require('./server');
const { patchChannel } = require('./client');

const patched = new ModuleOptions('grpc', Symbol.for('customlabels.grpc.settings'));

const OPTIONS = {
  labels: ['function', null, 'a function of the call'],
  forwarded: ['boolean', true, 'a boolean'],
  forward: ['boolean', false, 'a boolean'],
};

const isGrpc = (grpc) => grpc !== null && typeof grpc === 'object' && typeof grpc.Server === 'function';

// Patches `grpc` (the module) with the options of `context` (register's,
// or the app's own: context.config.options). Whether they now apply.
function patchGrpc(grpc, context) {
  if (!isGrpc(grpc)) return false;
  const options = readOptions(optionsOf(context), OPTIONS);
  const settings = { labelsOf: callLabels({ ownFn: options.labels, forwarded: options.forwarded }), forward: options.forward };
  return patched.apply(
    grpc.Server.prototype,
    settings,
    context,
    (patcher, holder) => {
      patchServer(patcher, grpc.Server, holder);
      patchChannel(patcher, grpc.Channel, holder);
    },
    () => context.integration.guard('grpc', grpc, context),
  );
}

const unpatchGrpc = () => patched.unpatch();

// The app's options, validated before anything is patched (TypeError).
const checkOptions = (options) => readOptions(options, OPTIONS);

module.exports = { patchGrpc, unpatchGrpc, isGrpc, checkOptions };
