'use strict';

// The patch of an amqplib copy (customlabels/amqplib): the Channel classes
// of its two channel models, loaded by path beside its main file (amqplib
// 1.2+ exports neither file, and this module never loads amqplib itself),
// once per model, with the options that apply (kit/module-options.js:
// register's until the app's own instrument()). A model whose Channel
// lacks consume or publish is left unpatched with one warning.

const fs = require('node:fs');
const path = require('node:path');
const { ModuleOptions, readOptions, optionsOf } = require('../kit/module-options');
const { fileOfExports } = require('../kit/versions');
const { labelsFor } = require('./messages');
const { patchChannel } = require('./channels');

const MODELS = ['lib/channel_model.js', 'lib/callback_model.js'];
const patched = new ModuleOptions('amqplib', Symbol.for('customlabels.amqplib.settings'));

const OPTIONS = {
  routing: ['boolean', false, 'a boolean'],
  labels: ['function', null, 'a function of the message'],
  producerLabels: ['boolean', true, 'a boolean'],
};

// The Channel classes of the models of the amqplib whose main file is
// `main`; `loadedOnly` (register's): only those the app loaded already
// (register patches the other when the app loads it). A model moved away
// is { file, Channel: undefined }: its check says so.
function channelsOf(main, loadedOnly) {
  const dir = path.dirname(main);
  const out = [];
  for (const file of MODELS) {
    const at = path.join(dir, file);
    if (!fs.existsSync(at)) {
      out.push({ file, Channel: undefined });
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

const isAmqplib = (amqplib) => amqplib !== null && (typeof amqplib === 'object' || typeof amqplib === 'function') && typeof amqplib.connect === 'function';

// Patches the amqplib module `amqplib` (require('amqplib') or
// require('amqplib/callback_api'); context.file: the file it was loaded
// from, found in the module cache when not given) with the options of
// `context` (register's, or the app's own). Whether they now apply to a
// model.
function patchAmqplib(amqplib, context) {
  if (!isAmqplib(amqplib)) return false;
  // (Register's file is a path where it resolved one, else the request.)
  const file = typeof context.file === 'string' && path.isAbsolute(context.file) ? context.file : fileOfExports(amqplib);
  if (file === null) return false; // not loaded by CommonJS here: nothing to find its models by
  const { routing, labels, producerLabels } = readOptions(optionsOf(context), OPTIONS);
  const settings = { messageLabels: labelsFor({ routing, ownFn: labels, producerLabels }) };
  let applied = false;
  for (const model of channelsOf(file, context.config.byHand !== true)) {
    const guard = () => context.integration.guard('model', model, context);
    if (typeof model.Channel !== 'function') {
      guard(); // moved: said so
      continue;
    }
    applied = patched.apply(model.Channel.prototype, settings, context, (patcher, holder) => patchChannel(patcher, model.Channel, holder), guard) || applied;
  }
  return applied;
}

const unpatchAmqplib = () => patched.unpatch();

// The app's options, validated before anything is patched (TypeError).
const checkOptions = (options) => readOptions(options, OPTIONS);

module.exports = { patchAmqplib, unpatchAmqplib, isAmqplib, checkOptions };
