'use strict';

// customlabels/register: `node --require customlabels/register app.js` or
// `node --import customlabels/register app.mjs` (or either in NODE_OPTIONS).
// Every integration of the table (lib/integrations/index.js) that the
// configuration (lib/register/config.js) leaves on is applied to the
// packages the app loads, where its descriptor says they are reached
// (lib/register/hooks.js for module loads, lib/register/globals.js for
// registries on the global object, diagnostics_channel for channels, the
// ones Node.js publishes on included), with
// the configuration passed in, through the integration's apply()
// (lib/integrations/kit/integration.js): the version of the package it
// reached is checked against the integration's range first (outside it,
// one warning, CUSTOMLABELS_UNSUPPORTED_FRAMEWORK, and the package is left
// alone), and a patch that throws is the same warning, never a failed
// start.
// Register never requires a framework itself.

const kStarted = Symbol.for('customlabels.register.started');

// (diagnostics_channel.subscribe is Node >= 18.7; before it, channel().)
function subscribe(name, fn) {
  const dc = require('node:diagnostics_channel');
  if (typeof dc.subscribe === 'function') dc.subscribe(name, fn);
  else dc.channel(name).subscribe(fn);
}

// The subscriber of a channel Node.js itself publishes on (no package, no
// version): it runs for every message (every HTTP request), so it does no
// more than call the patch; one that throws is one warning, and the message
// goes on unlabelled.
function builtinPatch(integration, reach, config) {
  const context = Object.freeze({ integration, version: null, file: undefined, config });
  integration.record(reach, undefined, context);
  return (message) => {
    try {
      reach.patch(message, context);
    } catch (err) {
      require('../core/warnings').warnOnce(`register:${reach.channel}`, `customlabels/${integration.name}: ${reach.channel} not labelled (${err && err.message})`, 'CUSTOMLABELS_REQUEST_LABELS');
    }
  };
}

function reachIntegration(integration, config, hooks) {
  const { versionOfFile } = require('../integrations/kit/versions');
  const versionAt = (file, pkg) => (typeof file === 'string' ? versionOfFile(file, pkg) : null);
  for (const reach of integration.reach) {
    const onLoad = (target, file) => integration.apply(reach, target, { version: versionAt(file, reach.package), file, config });
    switch (reach.kind) {
      case 'module':
        hooks.reachModule(reach.package, reach.requests, reach.esm === true, onLoad);
        break;
      case 'file':
        hooks.reachFile(reach.package, reach.file, onLoad);
        break;
      case 'relative':
        hooks.reachRelative(reach.package, reach.test, onLoad);
        break;
      case 'esm-file':
        hooks.reachEsmFile(reach.package, reach.file, reach.binding, onLoad);
        break;
      case 'channel':
        if (reach.builtin !== undefined) subscribe(reach.channel, builtinPatch(integration, reach, config));
        else subscribe(reach.channel, (message) => integration.apply(reach, message, { version: reach.versionOf(message), config }));
        break;
      case 'global':
        require('./globals').observeGlobal(reach.key, reach.property, (value, registry) => {
          const out = integration.apply(reach, value, { version: reach.versionOf(registry), config });
          return out === undefined ? value : out;
        });
        break;
      default:
        throw new Error(`customlabels/register: integration ${integration.name} has a reach of unknown kind ${reach.kind}`);
    }
  }
}

function start() {
  if (globalThis[kStarted] !== undefined) return globalThis[kStarted];
  const { readConfig } = require('./config');
  const { config, problems } = readConfig(process.env);
  const hooks = require('./hooks');
  for (const integration of require('../integrations')) {
    if (config.integrations.has(integration.name)) reachIntegration(integration, config, hooks);
  }
  const { esm } = hooks.start();
  if (problems.length > 0) {
    process.emitWarning(`customlabels/register: ${problems.join('; ')}. The rest of the configuration applies.`, { code: 'CUSTOMLABELS_REGISTER_CONFIG' });
  }
  const state = Object.freeze({ config, esm, problems });
  Object.defineProperty(globalThis, kStarted, { value: state });
  return state;
}

module.exports = { start };
