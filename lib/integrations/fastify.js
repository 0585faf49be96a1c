'use strict';

// The Fastify plugin (`customlabels/fastify`):
//
//   app.register(require('customlabels/fastify'), { labels: (request) => ({ tenant: ... }) })
//
// labels every request with `method` and `route` (the route's URL template,
// prefixes included: request.routeOptions.url; UNMATCHED for 404s) from its
// onRequest hook on, so every later hook, the body parser, the handler,
// onSend and onResponse run labelled. It follows fastify-plugin's conventions
// (skip-override: it applies to the whole app; a name; a declared Fastify
// range) without depending on it. Register it first: hooks added before it
// run unlabelled.

const { AsyncResource } = require('node:async_hooks');
const { requestLabels, runLabelled } = require('./request-labels');

const NAME = 'customlabels';
const FASTIFY_RANGE = '4.x || 5.x';

// request.routeOptions (Fastify >= 4.10) builds a new object on every read.
function routeOf(request) {
  const options = request.routeOptions;
  if (options !== undefined) return options.url;
  return request.routerPath; // Fastify 4.0-4.9
}

// `emitter.emit` that runs listeners in `scope`: an event nobody listens to
// (most of a response's: prefinish, close) does not enter it, and no
// AsyncResource#bind, whose bound function costs a property definition per
// request.
function emitIn(scope, emit) {
  return function emitInScope(event, ...args) {
    if (this.listenerCount(event) === 0) return emit.call(this, event, ...args);
    return scope.runInAsyncScope(emit, this, event, ...args);
  };
}

// customlabels/register adds the plugin to every Fastify instance as it is
// made (labelInstance); a registration of the app's own then takes over
// from the first request on, with its options.
const kHandWired = Symbol.for('customlabels.fastify.handWired');
const kAuto = Symbol('customlabels.fastify.auto');

function customlabels(fastify, options, done) {
  const auto = options[kAuto] === true;
  if (!auto) fastify[kHandWired] = true;
  const build = requestLabels(options);
  fastify.addHook('onRequest', function labelRequest(request, reply, next) {
    if (auto && fastify[kHandWired] === true) return next();
    runLabelled(build, request.method, request.is404 ? undefined : routeOf(request), request, () => {
      // A body that arrives after onRequest is read (and parsed) in the
      // socket's context: run the request stream's and the response's event
      // listeners in this scope, so parsing and onResponse are labelled too.
      const scope = new AsyncResource('customlabels.fastify');
      const { headers } = request;
      if (headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0) {
        request.raw.emit = emitIn(scope, request.raw.emit);
      }
      reply.raw.emit = emitIn(scope, reply.raw.emit);
      next();
    }, next);
  });
  done();
}

// customlabels/register: the plugin's hooks on a new root instance
// (diagnostics_channel 'fastify.initialization', Fastify 4.29+ and 5).
function labelInstance(fastify, options = {}) {
  customlabels(fastify, { ...options, [kAuto]: true }, () => {});
}

customlabels[Symbol.for('skip-override')] = true;
customlabels[Symbol.for('fastify.display-name')] = NAME;
customlabels[Symbol.for('plugin-meta')] = { name: NAME, fastify: FASTIFY_RANGE };
customlabels.default = customlabels;
customlabels.customlabels = customlabels;
Object.defineProperty(customlabels, 'labelInstance', { value: labelInstance });

module.exports = customlabels;
