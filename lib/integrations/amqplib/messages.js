'use strict';

// What travels with an AMQP message (customlabels/amqplib): the labels
// current where it was published, in one header, `x-customlabels` (a JSON
// string; not the trace ids, and not the consumer's own labels), and the
// labels a consumer runs a message under, merged from its queue (and
// routing), the producer's header (data from another process: what is not
// a valid label is left out, one warning) and options.labels(msg).

const { currentLabels } = require('../../index');
const errors = require('../../core/errors');
const { addLimited, mergeCarried, parseCarried, carrier } = require('../kit/carried');
const { PARCA, cutValue } = require('../kit/limits');
const { BoundedCache } = require('../kit/cache');

const QUEUE = 'queue';
const EXCHANGE = 'exchange';
const ROUTING_KEY = 'routing_key';
const HEADER = 'x-customlabels';
const { notCarried: NOT_CARRIED, warn } = carrier([QUEUE, EXCHANGE, ROUTING_KEY], { what: 'message', runs: 'messages', code: 'CUSTOMLABELS_MESSAGE_LABELS' });
const MAX_CACHED = 1024;
// Headers longer than this are read each time, not kept (they come from
// producers; a real one is a few labels).
const MAX_CACHED_HEADER = 1024;
const hasOwn = Object.prototype.hasOwnProperty;

// The header value a producer attaches, or null if there are no labels.
function headerValue() {
  const out = {};
  const problem = addLimited(out, currentLabels(), PARCA.MAX_LABELS - 1, NOT_CARRIED, false);
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

// messageLabels(queue, msg) for one consumer's options ({ routing, ownFn,
// producerLabels }).
function labelsFor({ routing, ownFn, producerLabels }) {
  const byQueue = new BoundedCache(MAX_CACHED);
  function baseOf(queue, msg) {
    if (routing) {
      const fields = msg.fields !== null && typeof msg.fields === 'object' ? msg.fields : {};
      const out = { [QUEUE]: cutValue(String(queue)) };
      if (typeof fields.exchange === 'string' && fields.exchange !== '') out[EXCHANGE] = cutValue(fields.exchange);
      if (typeof fields.routingKey === 'string' && fields.routingKey !== '') out[ROUTING_KEY] = cutValue(fields.routingKey);
      return Object.freeze(out);
    }
    return byQueue.get(queue, (q) => Object.freeze({ [QUEUE]: cutValue(String(q)) }));
  }
  // Without routing labels and labels of the consumer's own, a message's
  // labels depend on its queue and header alone: kept frozen per pair
  // (producers send few distinct headers), so each is read once and its
  // set built once.
  const byHeader = new BoundedCache(MAX_CACHED);
  return function messageLabels(queue, msg) {
    const raw = producerLabels ? headerOf(msg) : undefined;
    if (raw === undefined && ownFn === null) return baseOf(queue, msg);
    const key = ownFn === null && !routing && (raw === undefined || raw.length <= MAX_CACHED_HEADER) ? `${queue}\0${raw}` : null;
    if (key !== null) {
      const hit = byHeader.peek(key);
      if (hit !== undefined) return hit;
    }
    const carried = raw === undefined ? undefined : parseCarried(raw, HEADER, warn);
    const labels = mergeCarried(baseOf(queue, msg), ownFn, msg, carried, NOT_CARRIED, warn, 'options.labels(msg)');
    if (key !== null) byHeader.set(key, Object.freeze(labels));
    return labels;
  };
}

module.exports = { HEADER, headerValue, labelsFor, warn };
