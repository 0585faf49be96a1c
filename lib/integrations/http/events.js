'use strict';

// The events of a request the HTTP integration opened a scope for run in
// that scope (kit/request-scope.js: its set, which follows the route a
// framework finds): its body's ('data', 'end', 'readable'...) and its
// response's 'finish'. Node.js emits a body's chunks from the connection's
// context: where AsyncLocalStorage keeps its store on async resources
// (Node.js 18, 20, 22 without its flag) that is the connection's parser
// resource, which holds whatever was entered last in the request's first
// callback (the request's labels, without the route a framework finds
// later); where it runs on AsyncContextFrame, it is the socket's own frame,
// with no labels. A response's 'finish' comes from its socket's write there
// (a write made in the request's scope carries it where stores travel with
// async resources). So without this a handler that parses its body in
// 'end', a route's body parser and a framework's onResponse hooks would run
// under the wrong labels, or none.
//
// The emit of IncomingMessage (and, on AsyncContextFrame, of ServerResponse,
// for 'finish') is wrapped once, on its prototype: nothing is added to a
// request or a response (a property added to a message per request,
// measured, turns it into a slower kind of object). An event of a message
// of no scope (a client's response) costs a property read; one emitted
// where the scope's set is current already (inside the request's own work),
// a comparison; the others run as a withLabels scope of the set, which ends
// with the event.

const http = require('node:http');
const { scopes } = require('../../core');
const { Patcher } = require('../kit/patcher');
const { kScope } = require('../kit/request-scope');

const patcher = new Patcher('http-events');

// The events of a body that run in the scope.
const followed = (event) => event === 'data' || event === 'end' || event === 'readable' || event === 'close' || event === 'error' || event === 'aborted';

// emit(event, ...) of `message` in `scope`'s set, where that is not current.
function emitIn(scope, emit, message, event, args) {
  if (scope === undefined || scope.set === undefined || scope.set === scopes.current() || message.listenerCount(event) === 0) return emit.apply(message, args);
  return scopes.runIn(scope.set, () => emit.apply(message, args));
}

let installed = false;
function followEvents() {
  if (installed) return;
  installed = true;
  patcher.wrap(http.IncomingMessage.prototype, 'emit', (emit) =>
    function emit_(event) {
      if (!followed(event)) return emit.apply(this, arguments);
      return emitIn(this[kScope], emit, this, event, arguments);
    },
  );
  if (!scopes.onFrames()) return;
  patcher.wrap(http.ServerResponse.prototype, 'emit', (emit) =>
    function emit_(event) {
      if (event !== 'finish') return emit.apply(this, arguments);
      const { req } = this;
      return emitIn(req !== null && typeof req === 'object' ? req[kScope] : undefined, emit, this, event, arguments);
    },
  );
}

function unfollowEvents() {
  patcher.unwrapAll();
  installed = false;
}

module.exports = { followEvents, unfollowEvents };
