'use strict';

// Patching an amqplib copy (customlabels/amqplib): the Channel classes of
// its two channel models, loaded by path beside its main file (amqplib 1.2+
// exports neither file, and this module never loads amqplib itself), once
// per model, with the options that apply (kit/takeover.js). A version
// outside the declared range, or a model whose Channel lacks consume or
// publish, is left unpatched with one warning.

const fs = require('node:fs');
const path = require('node:path');
const errors = require('../../core/errors');
const { Patcher } = require('../kit/patcher');
const { take, settingsOn, release } = require('../kit/takeover');
const { inRange, hasInternals, versionOfFile, fileOfExports } = require('../kit/versions');
const { labelsFor } = require('./messages');
const { patchChannel } = require('./channels');

const PACKAGE = 'amqplib';
const MODELS = ['lib/channel_model.js', 'lib/callback_model.js'];
const kSettings = Symbol.for('customlabels.amqplib.settings');
const patcher = new Patcher('amqplib');
const patched = new Set();

function readOptions(options) {
  if (options === undefined || options === null) return { routing: false, ownFn: null, producerLabels: true };
  if (typeof options !== 'object') throw errors.invalidOption('', 'an object', options);
  const { routing = false, labels, producerLabels = true } = options;
  if (typeof routing !== 'boolean') throw errors.invalidOption('routing', 'a boolean', routing);
  if (typeof producerLabels !== 'boolean') throw errors.invalidOption('producerLabels', 'a boolean', producerLabels);
  if (labels !== undefined && labels !== null && typeof labels !== 'function') throw errors.invalidOption('labels', 'a function of the message', labels);
  return { routing, ownFn: labels ?? null, producerLabels };
}

// The Channel classes of the models of the amqplib whose main file is
// `main`; `loadedOnly` (register's): only those the app loaded already
// (register patches the other when the app loads it).
function channelsOf(main, loadedOnly) {
  const dir = path.dirname(main);
  const out = [];
  for (const file of MODELS) {
    const at = path.join(dir, file);
    if (!fs.existsSync(at)) {
      out.push({ file, Channel: undefined }); // moved: said so
      continue;
    }
    if (loadedOnly && require.cache[at] === undefined) continue;
    let mod;
    try {
      mod = require(at);
    } catch {
      continue; // an amqplib without this model
    }
    out.push({ file, Channel: mod !== null && typeof mod === 'object' ? mod.Channel : undefined });
  }
  return out;
}

// Patches the amqplib `amqplib` (the module: require('amqplib') or
// require('amqplib/callback_api'); `main`: the file it was loaded from,
// found in the module cache when not given) with `options`; `byRegister`:
// register's call. Returns whether these options now apply to a model.
function patchAmqplib(integration, amqplib, options, main, byRegister, version) {
  if (amqplib === null || (typeof amqplib !== 'object' && typeof amqplib !== 'function') || typeof amqplib.connect !== 'function') {
    throw errors.invalidOption('', "the amqplib module (require('amqplib'))", amqplib);
  }
  if (main !== undefined && (typeof main !== 'string' || !path.isAbsolute(main))) {
    throw errors.invalidOption('main', 'the absolute path amqplib was loaded from', main);
  }
  const settings = { messageLabels: labelsFor(readOptions(options)) };
  const file = main ?? fileOfExports(amqplib);
  if (file === null) return false; // not loaded by CommonJS here: nothing to find its models by
  const found = version === undefined ? versionOfFile(file, PACKAGE) : version;
  if (!inRange(integration, PACKAGE, found)) return false;
  let applied = false;
  for (const { file: model, Channel } of channelsOf(file, byRegister)) {
    const proto = typeof Channel === 'function' ? Channel.prototype : undefined;
    if (proto !== undefined && settingsOn(proto, kSettings) !== undefined) {
      applied = take(proto, kSettings, settings, byRegister) === 'taken' || applied;
      continue;
    }
    const ok = hasInternals(integration, PACKAGE, found, {
      [`${model} Channel#consume`]: () => typeof proto.consume === 'function',
      [`${model} Channel#publish`]: () => typeof proto.publish === 'function',
    });
    if (!ok) continue;
    take(proto, kSettings, settings, byRegister);
    patchChannel(patcher, Channel, settingsOn(proto, kSettings));
    patched.add(proto);
    applied = true;
  }
  return applied;
}

function unpatchAmqplib() {
  patcher.unwrapAll();
  for (const proto of patched) release(proto, kSettings);
  patched.clear();
}

module.exports = { patchAmqplib, unpatchAmqplib, PACKAGE };
