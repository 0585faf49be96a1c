'use strict';

// The Fastify plugin (`customlabels/fastify`), Fastify 4 and 5:
//
//   app.register(require('customlabels/fastify'), { labels: (request) => ({ tenant: ... }) })
//
// labels every request with `method` and `route` from its onRequest hook on
// (fastify/hooks.js). It follows fastify-plugin's conventions
// (skip-override: it applies to the whole app; a name) without depending on
// it, but declares no Fastify range in its meta, which Fastify would enforce
// by failing the registration: on a Fastify outside the supported range it
// registers as a no-op with one warning instead. Register it first: hooks
// added before it run unlabelled. Under customlabels/register it takes over from register's
// hook, and register's process and header labels join its own.

const { requestLabels } = require('../kit/request-labels');
const { markHandWired, registeredOf } = require('../kit/takeover');
const integration = require('./integration');
const { addLabelsHook } = require('./hooks');

const NAME = 'customlabels';
const PACKAGE = 'fastify';

function customlabels(fastify, options, done) {
  const build = requestLabels(options, registeredOf(fastify));
  if (integration.supports(PACKAGE, typeof fastify.version === 'string' ? fastify.version : null)) {
    markHandWired(fastify);
    addLabelsHook(fastify, build, null);
  }
  done();
}

customlabels[Symbol.for('skip-override')] = true;
customlabels[Symbol.for('fastify.display-name')] = NAME;
customlabels[Symbol.for('plugin-meta')] = { name: NAME };
customlabels.default = customlabels;
customlabels.customlabels = customlabels;

module.exports = customlabels;
