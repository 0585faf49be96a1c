'use strict';

// Patching a @grpc/grpc-js module (customlabels/grpc): its servers
// (grpc/server.js) and clients (grpc/client.js), once per copy of grpc-js,
// with the options that apply (kit/takeover.js: register's until the app's
// own instrument()). A version outside the declared range, or one whose
// Server#register, Server#addService or Channel#createCall is gone, is left
// unpatched with one warning.

const errors = require('../../core/errors');
const { Patcher } = require('../kit/patcher');
const { take, settingsOn, release } = require('../kit/takeover');
const { inRange, hasInternals, versionOfExports } = require('../kit/versions');
const { callLabels } = require('./forwarding');
const { patchServer } = require('./server');
const { patchChannel } = require('./client');

const PACKAGE = '@grpc/grpc-js';
const kSettings = Symbol.for('customlabels.grpc.settings');
const patcher = new Patcher('grpc');
const patched = new Set(); // Server.prototypes this copy patched

function readOptions(options) {
  if (options === undefined || options === null) return { ownFn: null, forwarded: true, forward: false };
  if (typeof options !== 'object') throw errors.invalidOption('', 'an object', options);
  const { labels, forwarded = true, forward = false } = options;
  if (labels !== undefined && labels !== null && typeof labels !== 'function') throw errors.invalidOption('labels', 'a function of the call', labels);
  if (typeof forwarded !== 'boolean') throw errors.invalidOption('forwarded', 'a boolean', forwarded);
  if (typeof forward !== 'boolean') throw errors.invalidOption('forward', 'a boolean', forward);
  return { ownFn: labels ?? null, forwarded, forward };
}

function isGrpc(grpc) {
  return grpc !== null && typeof grpc === 'object' && typeof grpc.Server === 'function';
}

// Patches `grpc` (the module) with `options`; `byRegister`: register's call
// (the app's own takes over); `version`: the one found (undefined: looked up
// from the module). Returns whether these options now apply.
function patchGrpc(integration, grpc, options, byRegister, version) {
  if (!isGrpc(grpc)) throw errors.invalidOption('', "the @grpc/grpc-js module (require('@grpc/grpc-js'))", grpc);
  const parsed = readOptions(options);
  const found = version === undefined ? versionOfExports(grpc, PACKAGE) : version;
  if (!inRange(integration, PACKAGE, found)) return false;
  const proto = grpc.Server.prototype;
  if (
    settingsOn(proto, kSettings) === undefined &&
    !hasInternals(integration, PACKAGE, found, {
      'Server#register': () => typeof proto.register === 'function',
      'Server#addService': () => typeof proto.addService === 'function',
      'Channel#createCall': () => typeof grpc.Channel === 'function' && typeof grpc.Channel.prototype.createCall === 'function',
    })
  ) {
    return false;
  }
  const settings = { labelsOf: callLabels(parsed), forward: parsed.forward };
  const how = take(proto, kSettings, settings, byRegister);
  if (how !== 'new') return how === 'taken';
  const holder = settingsOn(proto, kSettings);
  patchServer(patcher, grpc.Server, holder);
  patchChannel(patcher, grpc.Channel, holder);
  patched.add(proto);
  return true;
}

function unpatchGrpc() {
  patcher.unwrapAll();
  for (const proto of patched) release(proto, kSettings);
  patched.clear();
}

module.exports = { patchGrpc, unpatchGrpc, PACKAGE };
