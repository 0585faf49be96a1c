'use strict';

// Labelled worker tasks (`customlabels/worker`). AsyncLocalStorage never
// crosses a thread, so the sender's labels travel with the task as plain data
// and the receiving side runs the task under them.
//
// The labels ride in one extra property, LABELS_KEY, of a (shallow-copied)
// plain-object task; a string key, because structured clone drops symbol
// keys. A receiver that does not use these helpers sees its task with one
// more property and nothing else changes. Tasks that are not plain objects
// (primitives, arrays, class instances, Piscina.move() wrappers) are sent
// unchanged and run unlabelled.
//
// In the worker the task runs in one withLabels scope, nested in whatever
// scope the worker is in, that merges, lowest precedence first: the labels
// current in the worker, the sender's labels, and the worker's own labels
// given as options.labels (so a worker keeps its identity, say `pool`, when
// a sender set the same key).

const { withLabels, currentLabels } = require('../../index');
const errors = require('../../core/errors');
const { readLabels } = require('../../core/labels');
const { warnOnce } = require('../../core/warnings');
const { isPlainObject } = require('../kit/carried');

const LABELS_KEY = '__customlabels';

// The task to send: `task` with the labels current on this thread (or
// `labels`) attached, or `task` itself when there are none or it cannot
// carry them.
function withTaskLabels(task, labels = currentLabels()) {
  if (!isPlainObject(task)) return task;
  let any = false;
  for (const key in labels) {
    any = true;
    break;
  }
  if (!any) return task;
  return { ...task, [LABELS_KEY]: labels };
}

// Splits a received message into the sender's labels (or null) and the task
// as it was sent. The message is the receiver's own copy, so the labels
// property is removed from it in place.
function takeTaskLabels(message) {
  if (!isPlainObject(message) || !Object.prototype.hasOwnProperty.call(message, LABELS_KEY)) {
    return { labels: null, task: message };
  }
  const labels = message[LABELS_KEY];
  delete message[LABELS_KEY];
  return { labels: isPlainObject(labels) ? labels : null, task: message };
}

// The worker's own labels (options.labels: anything withLabels takes),
// validated when the helper is set up; null if none.
function ownLabels(options) {
  if (options === undefined || options === null) return null;
  const { labels } = options;
  if (labels === undefined || labels === null) return null;
  readLabels(labels);
  return labels;
}

// The carried labels withLabels takes: a message may come from anything
// that posts to the port, so what is not a valid label is left out (one
// warning), and the task still runs.
function validCarried(labels) {
  try {
    readLabels(labels);
    return labels;
  } catch (err) {
    warnOnce('task-labels', `customlabels: task labels not published as given (${err && err.message}); tasks run with the labels that are valid`, 'CUSTOMLABELS_TASK_LABELS');
  }
  const out = {};
  for (const key of Object.keys(labels)) {
    try {
      readLabels({ [key]: labels[key] });
      out[key] = labels[key];
    } catch {
      // left out
    }
  }
  return out;
}

// Runs fn(task) under the labels the message carries, with the worker's own
// (options.labels) over them.
function runWithTaskLabels(message, fn, options) {
  const taken = takeTaskLabels(message);
  const { task } = taken;
  const labels = taken.labels === null ? null : validCarried(taken.labels);
  const own = ownLabels(options);
  const inner = own === null ? () => fn(task) : () => withLabels(own, () => fn(task));
  return labels === null ? inner() : withLabels(labels, inner);
}

// worker_threads: `port` is a Worker, a MessagePort or parentPort.
function postMessage(port, task, transferList) {
  if (port === null || typeof port !== 'object' || typeof port.postMessage !== 'function') {
    throw errors.invalidPort('postMessage', port);
  }
  return port.postMessage(withTaskLabels(task), transferList);
}

// Listens for tasks on `port` and runs each under its sender's labels.
// Returns the listener (for port.off('message', listener)).
function onMessage(port, handler, options) {
  if (port === null || typeof port !== 'object' || typeof port.on !== 'function') throw errors.invalidPort('on', port);
  if (typeof handler !== 'function') throw errors.invalidCallback(handler);
  ownLabels(options);
  const listener = (message) => runWithTaskLabels(message, handler, options);
  port.on('message', listener);
  return listener;
}

// Piscina, caller side: pool.run with the caller's labels attached.
function run(pool, task, options) {
  return pool.run(withTaskLabels(task), options);
}

// Piscina (or any pool), worker side: wraps the exported task handler.
//   module.exports = handler(async (task) => { ... }, { labels: { pool: 'images' } });
function handler(fn, options) {
  if (typeof fn !== 'function') throw errors.invalidCallback(fn);
  ownLabels(options);
  return function labelledTask(message) {
    return runWithTaskLabels(message, fn, options);
  };
}

module.exports = { LABELS_KEY, withTaskLabels, takeTaskLabels, runWithTaskLabels, postMessage, onMessage, run, handler };
