'use strict';

// A module patched once, whose options come from register or from the app
// (customlabels/grpc, customlabels/amqplib: instrument(module, options)):
// its classes are patched once per copy of the package, and the patches
// read the options that apply from one holder on a prototype
// (kit/takeover.js: register's until the app's own call, whose first one
// wins).
//
//   const patched = new ModuleOptions('grpc', Symbol.for('customlabels.grpc.settings'));
//   patched.apply(Server.prototype, settings, context, (patcher, holder) => { ... }, () => guard)
//   patched.unpatch();
//
// readOptions(options, spec) validates what the app passed: spec is
// { name: [kind ('boolean' | 'function'), default, what it is] }, and an
// option of the wrong kind is a TypeError (ERR_CUSTOMLABELS_INVALID_OPTION).

const errors = require('../../core/errors');
const { Patcher } = require('./patcher');
const { take, settingsOn, release } = require('./takeover');

function readOptions(options, spec) {
  const out = {};
  if (options !== undefined && options !== null && typeof options !== 'object') throw errors.invalidOption('', 'an object', options);
  for (const [name, [kind, fallback, what]] of Object.entries(spec)) {
    const value = options === undefined || options === null || options[name] === undefined || options[name] === null ? fallback : options[name];
    if (value !== fallback && typeof value !== kind) throw errors.invalidOption(name, what, value);
    out[name] = value;
  }
  return out;
}

// The options a patch of `context` takes: the app's own (config.options),
// or, under register, its process labels for every message or call.
function optionsOf({ config }) {
  if (config.byHand === true) return config.options;
  const { labels } = config;
  return Object.keys(labels).length > 0 ? { labels: () => labels } : undefined;
}

class ModuleOptions {
  constructor(name, key) {
    this.key = key;
    this.patcher = new Patcher(name);
    this.patched = new Set(); // prototypes holding this copy's settings
  }

  // Applies `settings` (register's, or the app's own: context.config) to
  // `proto`: the first time, where guard() holds, patch(patcher, holder);
  // after, the app's own over register's. Whether these settings apply.
  apply(proto, settings, { config }, patch, guard) {
    const byRegister = config.byHand !== true;
    if (settingsOn(proto, this.key) !== undefined) return take(proto, this.key, settings, byRegister) === 'taken';
    if (!guard()) return false;
    take(proto, this.key, settings, byRegister);
    patch(this.patcher, settingsOn(proto, this.key));
    this.patched.add(proto);
    return true;
  }

  unpatch() {
    this.patcher.unwrapAll();
    for (const proto of this.patched) release(proto, this.key);
    this.patched.clear();
  }
}

module.exports = { ModuleOptions, readOptions, optionsOf };
