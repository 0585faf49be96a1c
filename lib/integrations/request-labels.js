'use strict';

// The labels the HTTP integrations publish per request, and their options:
//   method  the request method (GET, POST, ...)
//   route   the route template ('/users/:id'), never the raw path;
//           UNMATCHED when no route matched (404s); off with route: false
//   plus whatever options.labels(request) returns (tenant from a header...).
// Short keys and values that repeat per route keep the sets small enough
// for what profilers keep and cheap to build (repeated sets are interned).

const errors = require('../errors');

const UNMATCHED = '(unmatched)';

function invalidOption(name, expected, value) {
  const err = new TypeError(
    `Expected ${expected} for options.${name} but received ${errors.describe(value)} of type ${value === null ? 'null' : typeof value}`,
  );
  err.code = 'ERR_CUSTOMLABELS_INVALID_OPTION';
  return err;
}

// Validates the options once and returns build(method, route, request).
function requestLabels(options = {}) {
  if (typeof options !== 'object' || options === null) throw invalidOption('', 'an object', options);
  const { labels: extra, route = true } = options;
  if (extra !== undefined && typeof extra !== 'function') throw invalidOption('labels', 'a function', extra);
  if (typeof route !== 'boolean') throw invalidOption('route', 'a boolean', route);
  return function build(method, template, request) {
    const out = route ? { method, route: template === undefined ? UNMATCHED : template } : { method };
    if (extra === undefined) return out;
    const more = extra(request);
    if (more === undefined || more === null) return out;
    if (typeof more !== 'object') throw invalidOption('labels', 'a function returning an object', more);
    return Object.assign(out, more);
  };
}

module.exports = { requestLabels, UNMATCHED };
