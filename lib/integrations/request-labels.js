'use strict';

// The labels the HTTP integrations publish per request, and their options:
//   method  the request method (GET, POST, ...)
//   route   the route template ('/users/:id'), never the raw path;
//           UNMATCHED when no route matched (404s); off with route: false
//   plus whatever options.labels(request) returns (tenant from a header...).
// Short keys and values that repeat per route keep the sets small enough
// for what profilers keep and cheap to build (repeated sets are interned).

const { types } = require('node:util');
const { withLabels } = require('../index');
const errors = require('../errors');
const { warnOnce } = require('../warnings');

const UNMATCHED = '(unmatched)';
const MAX_CACHED = 1024;

// Validates the options once and returns build(method, route, request).
function requestLabels(options = {}) {
  if (typeof options !== 'object' || options === null) throw errors.invalidOption('', 'an object', options);
  const { labels: extra, route = true } = options;
  if (extra !== undefined && typeof extra !== 'function') throw errors.invalidOption('labels', 'a function', extra);
  if (typeof route !== 'boolean') throw errors.invalidOption('route', 'a boolean', route);
  if (extra === undefined) {
    // The labels depend on method and template alone: one frozen object per
    // pair, which withLabels finds its set for by identity (no reading,
    // encoding or interning per request). Methods and templates come from
    // the HTTP parser and the app's routes; the bound only guards against an
    // app that builds routes at run time.
    const byMethod = new Map();
    let cached = 0;
    return function build(method, template) {
      const key = route ? (template === undefined ? UNMATCHED : template) : '';
      let byKey = byMethod.get(method);
      if (byKey === undefined) {
        byKey = new Map();
        if (cached < MAX_CACHED) byMethod.set(method, byKey);
      }
      let out = byKey.get(key);
      if (out === undefined) {
        out = Object.freeze(route ? { method, route: key } : { method });
        if (cached < MAX_CACHED) {
          cached++;
          byKey.set(key, out);
        }
      }
      return out;
    };
  }
  return function build(method, template, request) {
    const out = route ? { method, route: template === undefined ? UNMATCHED : template } : { method };
    const more = extra(request);
    if (more === undefined || more === null) return out;
    if (typeof more !== 'object') throw errors.invalidOption('labels', 'a function returning an object', more);
    if (types.isMap(more)) {
      for (const [k, v] of more) out[k] = v;
      return out;
    }
    return Object.assign(out, more);
  };
}

// fn() under `labels`; if withLabels rejects them (it throws before fn
// runs), rejected(err) instead. Errors of fn itself pass through.
function withLabelsOr(labels, fn, rejected) {
  let entered = false;
  try {
    return withLabels(labels, () => {
      entered = true;
      return fn();
    });
  } catch (err) {
    if (entered) throw err;
    return rejected(err);
  }
}

// Runs fn() under the request's labels. Labels that cannot be built or
// published (options.labels threw, or returned an invalid value) never fail
// the request: a warning (once per thread) and fn() runs unlabelled. An
// error thrown by fn itself passes through. `fallback` (default fn) is what
// runs instead.
function runLabelled(build, method, route, request, fn, fallback = fn) {
  const rejected = (err) => {
    warnOnce('request-labels', `customlabels: request labels not published (${err && err.message}); requests run unlabelled`, 'CUSTOMLABELS_REQUEST_LABELS');
    return fallback();
  };
  let labels;
  try {
    labels = build(method, route, request);
  } catch (err) {
    return rejected(err);
  }
  return withLabelsOr(labels, fn, rejected);
}

module.exports = { requestLabels, runLabelled, withLabelsOr, UNMATCHED };
