'use strict';

// Events of an emitter that Node runs from the socket's (or a session's)
// context, run in a scope's instead: a request body read in chunks (Express
// and Fastify body parsers), a response's 'finish', a gRPC call's stream
// events. The emitter's own `emit` is replaced (an own property, on this
// one object); an event nobody listens to (most of a response's: prefinish,
// close) does not enter the scope, and no AsyncResource#bind is made, whose
// bound function costs a property definition per request.

const { AsyncResource } = require('node:async_hooks');

// Runs `emitter`'s listeners in the async context current now (or `scope`,
// an AsyncResource). Returns a handle whose capture() moves them to the
// context current then (a request whose body a route's own parser reads
// runs that read in the route's scope).
function runEventsIn(emitter, scope = new AsyncResource('customlabels.events')) {
  const emit = emitter.emit;
  const events = {
    scope,
    capture() {
      events.scope = new AsyncResource('customlabels.events');
    },
  };
  // (An assignment: a property defined otherwise, not enumerable, turns a
  // response into a slower kind of object, measured at 5 % of Fastify's
  // CPU per request. Requests register's HTTP integration opened a scope
  // for need none of this: kit/request-scope.js.)
  emitter.emit = function emitInScope(event, ...args) {
    if (this.listenerCount(event) === 0) return emit.call(this, event, ...args);
    return events.scope.runInAsyncScope(emit, this, event, ...args);
  };
  return events;
}

// Whether a request (Node's IncomingMessage headers) has a body still to
// read.
function hasBody(headers) {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;
}

module.exports = { runEventsIn, hasBody };
