'use strict';

// Labelling an Express request, by register (express/integration.js) or an
// app's labels() (express/index.js).

const { runLabelled } = require('../kit/request-labels');
const { runEventsIn, hasBody } = require('../kit/emitter');
const { stateOf } = require('./router');

// Labels a request (by register or an app's labels()): marks it for route
// scopes, runs its body's events in its scope (Express 4.16-4.17's body
// parser reads a chunked body in the socket's context), and runs fn() under
// `build`'s labels.
function labelRequest(build, withRoute, req, fn) {
  const state = stateOf(req);
  state.labelled = true;
  if (withRoute) state.active = true;
  return runLabelled(build, req.method, undefined, req, () => {
    if (state.events === null && hasBody(req.headers)) state.events = runEventsIn(req);
    return fn();
  }, fn);
}

module.exports = { labelRequest };
