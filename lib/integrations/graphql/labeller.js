'use strict';

// A plugin's labeller (customlabels/graphql): its options, validated once,
// and how an operation runs under its labels, with the user's own merged
// over them; shared by the Apollo and the envelop/Yoga plugins.

const { withLabels } = require('../../index');
const { withLabelsOr } = require('../kit/request-labels');
const errors = require('../../core/errors');
const { warnOnce } = require('../../core/warnings');
const { MAX_OPERATIONS, canRead } = require('./outline');
const { BoundedCache } = require('../kit/cache');

const OPERATION = 'graphql.operation';
const TYPE = 'graphql.type';

// One warning per kind (labels, apollo, yoga) and thread.
const warn = (kind, message) => warnOnce(`graphql-${kind}`, `customlabels: ${message}`, 'CUSTOMLABELS_GRAPHQL_LABELS');

function mergeInto(out, more) {
  if (more instanceof Map) {
    for (const [k, v] of more) out[k] = v;
  } else {
    Object.assign(out, more);
  }
  return out;
}

// Validates the options once and returns the plugin's labeller
// (`integration`: customlabels/graphql's descriptor, which says whether the
// graphql-js found is supported):
//   run(op, request, headers, fn)  fn() under op's labels (and the user's)
//   active                         false when there is nothing to publish
function createLabeller(options, integration) {
  if (options === undefined) options = {};
  if (typeof options !== 'object' || options === null) throw errors.invalidOption('', 'an object', options);
  const { labels: extra, operation = true, type = true } = options;
  if (extra !== undefined && typeof extra !== 'function') throw errors.invalidOption('labels', 'a function', extra);
  if (typeof operation !== 'boolean') throw errors.invalidOption('operation', 'a boolean', operation);
  if (typeof type !== 'boolean') throw errors.invalidOption('type', 'a boolean', type);

  const frozen = new BoundedCache(MAX_OPERATIONS); // op -> frozen labels
  function labelsOf(op) {
    return frozen.get(op, () => {
      const out = {};
      if (operation) out[OPERATION] = op.operation;
      if (type) out[TYPE] = op.type;
      return Object.freeze(out);
    });
  }

  // fn() under `labels`; if they cannot be published, under `fallback`,
  // else unlabelled. Errors of fn pass through.
  function runWith(labels, fallback, fn) {
    return withLabelsOr(labels, fn, (err) => {
      warn('labels', `GraphQL labels not published (${err && err.message}); operations run with ${fallback === null ? 'no labels of their own' : 'the GraphQL labels alone'}`);
      return fallback === null ? fn() : runWith(fallback, null, fn);
    });
  }

  let run;
  if (!canRead(integration)) {
    // graphql-js is missing or unsupported: operations are left alone.
    run = (op, request, headers, fn) => fn();
  } else if (extra === undefined) {
    // Frozen strings of our own: withLabels never rejects them.
    run = (op, request, headers, fn) => withLabels(labelsOf(op), fn);
  } else {
    run = (op, request, headers, fn) => {
      const base = labelsOf(op);
      let labels;
      try {
        const more = extra({ operation: op.operation, type: op.type, headers, request });
        if (more === undefined || more === null) {
          labels = base;
        } else if (typeof more !== 'object') {
          throw errors.invalidOption('labels', 'a function returning an object', more);
        } else {
          labels = mergeInto({ ...base }, more);
        }
      } catch (err) {
        warn('labels', `options.labels failed (${err && err.message}); operations run with the GraphQL labels alone`);
        labels = base;
      }
      return runWith(labels, labels === base ? null : base, fn);
    };
  }
  return { run, active: operation || type || extra !== undefined };
}

function headersOf(request) {
  return typeof request === 'object' && request !== null && typeof request.headers === 'object' && request.headers !== null ? request.headers : undefined;
}

module.exports = { createLabeller, headersOf, warn, OPERATION, TYPE };
