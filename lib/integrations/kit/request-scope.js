'use strict';

// The scope customlabels/register's HTTP integration (lib/integrations/http)
// opened for a request: it marks each request it entered one for, so that a
// framework integration adds its route on top of that scope rather than
// opening a second one for the request, and labels only the requests it
// did not see (a request a framework was handed without a server: inject(),
// an adapter's fake request; an http2 server on a line without the
// channel). The mark is on the request Node.js made (an IncomingMessage) or,
// for HTTP/2, on its stream (a compat request's .stream), shared by every
// copy of customlabels (Symbol.for).
//
// A scope is { set, server, routed }: `set`, the label set the request's
// events (its body's 'data' and 'end', its response's 'finish':
// http/events.js) run under, the HTTP integration's at first; amend() enters
// a framework's labels (its route) on top and the events follow; follow()
// makes them follow a scope the framework opened itself (a route's
// withLabels). A framework that labels `route` (unmatched) until it finds
// one marks the request's server (unmatched()): the HTTP integration then
// enters `route` (unmatched) with the rest at once for that server's later
// requests (`routed`), and the framework has nothing to add.

const { scopes } = require('../../core');

const kScope = Symbol.for('customlabels.http.requestScope');
const kRouted = Symbol.for('customlabels.http.routed');
const UNMATCHED_ROUTE = Object.freeze({ route: '(unmatched)' });

function markRequestScope(target, scope) {
  target[kScope] = scope;
}

// The scope the HTTP integration opened for `req`, or undefined.
function requestScopeOf(req) {
  if (req === null || typeof req !== 'object') return undefined;
  const scope = req[kScope];
  if (scope !== undefined) return scope;
  const { stream } = req;
  return stream !== null && typeof stream === 'object' ? stream[kScope] : undefined;
}

// `labels` on top of `scope`, for the rest of the request (scopes.enterLabels);
// its events follow. Throws as withLabels does.
function amend(scope, labels) {
  scope.set = scopes.enterLabels(labels);
}

// The request's events run under what is current now.
function follow(scope) {
  scope.set = scopes.current();
}

// `route` (unmatched) on top of `scope`, where the HTTP integration did not
// enter it with the rest; the request's server gets it so from now on.
// Throws as withLabels does.
function unmatched(scope) {
  if (scope.routed) return;
  const { server } = scope;
  if (server !== null && typeof server === 'object' && server[kRouted] !== true) {
    try {
      Object.defineProperty(server, kRouted, { value: true, configurable: true });
    } catch {
      // a frozen server: each request is amended
    }
  }
  amend(scope, UNMATCHED_ROUTE);
}

// Whether the requests of `server` start with `route` (unmatched).
const isRouted = (server) => server !== null && typeof server === 'object' && server[kRouted] === true;

module.exports = { markRequestScope, requestScopeOf, amend, follow, unmatched, isRouted, kScope, UNMATCHED_ROUTE };
