'use strict';

// RabbitMQ consumers and producers (`customlabels/amqplib`), amqplib 0.10+,
// promise and callback APIs:
//
//   require('customlabels/amqplib').instrument(require('amqplib'), {
//     routing: false,  // true: exchange and routing_key labels too
//     labels: (msg) => ({ tenant: msg.properties.headers?.tenant }), // optional
//   });
//
// Consumer. Each message's callback (channel.consume(queue, onMessage)), and
// everything it causes until it is done (awaits, timers, the ack), runs
// under
//   queue        the queue consumed
//   exchange, routing_key   with `routing: true` (routing keys can make a
//                value per message, so they are opt-in)
// over the labels the producer attached (lowest precedence, within the
// readers' limits), with options.labels(msg) on top. amqplib calls a
// consumer from its connection's socket callbacks, in the context the
// connection was opened in, so without this a message's work runs under
// whatever labels were current at connect(). A `null` message (the broker
// cancelled the consumer) runs as it is.
//
// Producer. channel.publish() and sendToQueue() (Channel and ConfirmChannel,
// both APIs) attach the labels current where they are called, without the
// trace ids and the consumer's own labels, in one message header,
// `x-customlabels` (a JSON string), unless the message has one already; the
// caller's options and headers objects are copied, never changed.
//
// Bad label data in a message never fails or requeues it: its callback runs
// with the labels that are valid, and the process gets one warning
// (CUSTOMLABELS_MESSAGE_LABELS). Acks, nacks, prefetch and redelivery are
// amqplib's, untouched. This module patches Channel#consume and
// Channel#publish of amqplib's two channel models (lib/channel_model.js,
// lib/callback_model.js), once per amqplib copy.

const { AsyncResource } = require('node:async_hooks');
const path = require('node:path');
const { withLabels, currentLabels } = require('../index');
const errors = require('../core/errors');
const { warnOnce } = require('../core/warnings');
const { addLimited, mergeCarried, parseCarried, TRACE_IDS } = require('./carried');
const { PARCA, cutValue } = require('./reader-limits');

const QUEUE = 'queue';
const EXCHANGE = 'exchange';
const ROUTING_KEY = 'routing_key';
const HEADER = 'x-customlabels';
const RESERVED = new Set([QUEUE, EXCHANGE, ROUTING_KEY]);
const NOT_CARRIED = new Set([...RESERVED, ...TRACE_IDS]);
const { MAX_LABELS } = PARCA;
const MAX_CACHED = 1024;
// Headers longer than this are read each time, not kept (they come from
// producers; a real one is a few labels).
const MAX_CACHED_HEADER = 1024;
const hasOwn = Object.prototype.hasOwnProperty;
const kPatched = Symbol.for('customlabels.amqplib.patched');

const warn = (reason) =>
  warnOnce('message-labels', `customlabels: message labels not published as given (${reason}); messages run with the labels that are valid`, 'CUSTOMLABELS_MESSAGE_LABELS');

function readOptions(options) {
  if (options === undefined || options === null) return { routing: false, ownFn: null, producerLabels: true };
  if (typeof options !== 'object') throw errors.invalidOption('', 'an object', options);
  const { routing = false, labels, producerLabels = true } = options;
  if (typeof routing !== 'boolean') throw errors.invalidOption('routing', 'a boolean', routing);
  if (typeof producerLabels !== 'boolean') throw errors.invalidOption('producerLabels', 'a boolean', producerLabels);
  if (labels !== undefined && labels !== null && typeof labels !== 'function') throw errors.invalidOption('labels', 'a function of the message', labels);
  return { routing, ownFn: labels ?? null, producerLabels };
}

// The header value a producer attaches, or null if there are no labels.
function headerValue() {
  const out = {};
  const problem = addLimited(out, currentLabels(), MAX_LABELS - 1, NOT_CARRIED, false);
  if (problem !== null) warn(problem);
  return Object.keys(out).length === 0 ? null : JSON.stringify(out);
}

// The producer's header of a delivered message (a string), or undefined.
function headerOf(msg) {
  const headers = msg.properties !== null && typeof msg.properties === 'object' ? msg.properties.headers : undefined;
  if (headers === null || typeof headers !== 'object' || !hasOwn.call(headers, HEADER)) return undefined;
  let raw = headers[HEADER];
  if (Buffer.isBuffer(raw)) raw = raw.toString('utf8');
  if (typeof raw !== 'string') {
    warn(`${HEADER} is ${errors.describe(raw)}, not a string`);
    return undefined;
  }
  return raw;
}

// messageLabels(queue, msg) for one consumer's options.
function labelsFor({ routing, ownFn, producerLabels }) {
  const byQueue = new Map();
  function baseOf(queue, msg) {
    if (routing) {
      const fields = msg.fields !== null && typeof msg.fields === 'object' ? msg.fields : {};
      const out = { [QUEUE]: cutValue(String(queue)) };
      if (typeof fields.exchange === 'string' && fields.exchange !== '') out[EXCHANGE] = cutValue(fields.exchange);
      if (typeof fields.routingKey === 'string' && fields.routingKey !== '') out[ROUTING_KEY] = cutValue(fields.routingKey);
      return Object.freeze(out);
    }
    let base = byQueue.get(queue);
    if (base === undefined) {
      base = Object.freeze({ [QUEUE]: cutValue(String(queue)) });
      if (byQueue.size < MAX_CACHED) byQueue.set(queue, base);
    }
    return base;
  }
  // Without routing labels and labels of the consumer's own, a message's
  // labels depend on its queue and header alone: kept frozen per pair
  // (producers send few distinct headers), so each is read once and its
  // set built once.
  const byHeader = new Map();
  return function messageLabels(queue, msg) {
    const raw = producerLabels ? headerOf(msg) : undefined;
    if (raw === undefined && ownFn === null) return baseOf(queue, msg);
    const key = ownFn === null && !routing && (raw === undefined || raw.length <= MAX_CACHED_HEADER) ? `${queue}\0${raw}` : null;
    if (key !== null) {
      const hit = byHeader.get(key);
      if (hit !== undefined) return hit;
    }
    const labels = labelsOf(queue, msg, raw === undefined ? undefined : parseCarried(raw, HEADER, warn));
    if (key !== null && byHeader.size < MAX_CACHED) byHeader.set(key, Object.freeze(labels));
    return labels;
  };
  function labelsOf(queue, msg, carried) {
    return mergeCarried(baseOf(queue, msg), ownFn, msg, carried, NOT_CARRIED, warn, 'options.labels(msg)');
  }
}

// `messageLabels` for this model's consumers; an app's own instrument()
// replaces customlabels/register's once (false: patched already, unused).
function patchModel(Channel, messageLabels, byRegister) {
  const proto = Channel.prototype;
  const applied = hasOwn.call(proto, kPatched) ? proto[kPatched] : null;
  if (applied !== null) {
    if (byRegister || !applied.byRegister) return false;
    Object.assign(applied, { messageLabels, byRegister: false });
    return true;
  }
  const state = { messageLabels, byRegister };
  Object.defineProperty(proto, kPatched, { value: state });
  const consume = proto.consume;
  proto.consume = function consume_(queue, onMessage, ...rest) {
    if (typeof onMessage !== 'function') return consume.call(this, queue, onMessage, ...rest);
    // amqplib calls consumers from the connection's socket, in the context
    // connect() ran in (maybe a request's): each message runs in the
    // context consume() was called in instead, under its own labels.
    const scope = new AsyncResource('customlabels.amqplib.consume');
    function labelled(msg) {
      if (msg === null || typeof msg !== 'object') return onMessage(msg);
      let labels;
      try {
        labels = state.messageLabels(queue, msg);
      } catch (err) {
        warn(err && err.message);
        return onMessage(msg);
      }
      return withLabels(labels, () => onMessage(msg));
    }
    function labelledConsumer(msg) {
      return scope.runInAsyncScope(labelled, this, msg);
    }
    return consume.call(this, queue, labelledConsumer, ...rest);
  };
  const publish = proto.publish;
  proto.publish = function publish_(exchange, routingKey, content, options, ...rest) {
    let value;
    try {
      const headers = options !== null && typeof options === 'object' ? options.headers : undefined;
      value = headers !== null && typeof headers === 'object' && hasOwn.call(headers, HEADER) ? null : headerValue();
    } catch (err) {
      warn(err && err.message);
      value = null;
    }
    if (value === null) return publish.call(this, exchange, routingKey, content, options, ...rest);
    const given = options !== null && typeof options === 'object' ? options : {};
    const headers = given.headers !== null && typeof given.headers === 'object' ? given.headers : {};
    // The caller's options seen through (inherited ones too), with headers
    // of our own: neither object is changed.
    const copy = Object.create(given);
    copy.headers = { ...headers, [HEADER]: value };
    return publish.call(this, exchange, routingKey, content, copy, ...rest);
  };
  return true;
}

// The channel models of an amqplib copy: its two lib/ modules, loaded by
// path (amqplib >= 1.2 exports neither).
// `loadedOnly` (register's): only the models the app has loaded already
// (register patches the other when the app loads it).
function modelsOf(amqplib, from, loadedOnly) {
  let main = from;
  if (main === undefined) {
    // The file `amqplib` was loaded from (this module never loads it); an
    // ESM namespace (import * as amqplib) holds it as its default.
    const exported = new Set([amqplib, amqplib.default].filter((x) => x !== undefined && x !== null));
    for (const [file, m] of Object.entries(require.cache)) {
      if (m !== undefined && exported.has(m.exports)) {
        main = file;
        break;
      }
    }
  }
  if (main === undefined) return [];
  const dir = path.dirname(main);
  const out = [];
  for (const file of ['lib/channel_model.js', 'lib/callback_model.js']) {
    const at = path.join(dir, file);
    if (loadedOnly && require.cache[at] === undefined) continue;
    try {
      const mod = require(at);
      if (typeof mod.Channel === 'function') out.push(mod.Channel);
    } catch {
      // an amqplib without this model
    }
  }
  return out;
}

// Patches amqplib's channels (both APIs); `amqplib` is the module
// (require('amqplib') or require('amqplib/callback_api')), `main` the file
// it was loaded from (found in the module cache when not given). The first
// call's options apply, except over customlabels/register's: an app that
// calls instrument() itself takes over with its own; false if there was
// nothing (left) to patch.
function instrument(amqplib, options, main) {
  return patch(amqplib, options, main, false);
}

// customlabels/register's call: the defaults, with the process's labels
// (CUSTOMLABELS_LABELS) as the consumer's own, until the app's own call.
function instrumentForRegister(amqplib, main, processLabels = {}) {
  return patch(amqplib, Object.keys(processLabels).length > 0 ? { labels: () => processLabels } : undefined, main, true);
}

function patch(amqplib, options, main, byRegister) {
  if (amqplib === null || (typeof amqplib !== 'object' && typeof amqplib !== 'function') || typeof amqplib.connect !== 'function') {
    throw errors.invalidOption('', "the amqplib module (require('amqplib'))", amqplib);
  }
  if (main !== undefined && (typeof main !== 'string' || !path.isAbsolute(main))) {
    throw errors.invalidOption('main', 'the absolute path amqplib was loaded from', main);
  }
  const messageLabels = labelsFor(readOptions(options));
  let patched = false;
  for (const Channel of modelsOf(amqplib, main, byRegister)) patched = patchModel(Channel, messageLabels, byRegister) || patched;
  return patched;
}

module.exports = { instrument, instrumentForRegister, HEADER };
