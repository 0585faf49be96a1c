'use strict';

// Labels that travel with work from another process (a BullMQ job's data,
// a gRPC call's metadata, an AMQP message's headers): they come from
// producers the consumer may not control, so what a consumer publishes of
// them is kept within what the readers keep (./limits.js), and bad label
// data is left out, never an error.

const errors = require('../../core/errors');
const { readLabels } = require('../../core/labels');
const { warnOnce } = require('../../core/warnings');
const { PARCA, cutValue: cut, keyFits } = require('./limits');

const { MAX_LABELS, MAX_KEY_BYTES } = PARCA;
const hasOwn = Object.prototype.hasOwnProperty;
const utf8 = new TextDecoder();

// Whether `value` is data a task or job carries labels in: a plain object.
function isPlainObject(value) {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
// Not carried by default: span ids describe the producer's request, not
// the consumer's work.
const TRACE_IDS = Object.freeze(['trace_id', 'span_id', 'local_root_span_id']);

// Adds to `out` the labels of `source` (a plain object) that are within the
// readers' limits, at most `room` of them, except keys `out` already has
// and keys in `skip` (null: none): those are set by someone who wins
// anyway. Values: strings (cut), numbers, booleans and bigints (as strings),
// Uint8Arrays (decoded), and null/undefined, kept as null (removal) if
// `keepNull`, else left out. A label replacing one `present` has (non-null)
// takes no room. Returns what it left out that it should not have, for the
// warning (null: nothing).
function addLimited(out, source, room, skip, keepNull, present = null) {
  let problem = null;
  let used = 0;
  for (const key in source) {
    if (!hasOwn.call(source, key) || hasOwn.call(out, key) || (skip !== null && skip.has(key))) continue;
    if (key === '' || key === '__proto__' || !keyFits(key)) {
      problem = `key ${errors.describe(key)} is not a label key of 1 to ${MAX_KEY_BYTES} bytes`;
      continue;
    }
    const value = source[key];
    let v;
    switch (typeof value) {
      case 'string':
        v = cut(value);
        break;
      case 'number':
      case 'boolean':
      case 'bigint':
        v = cut(String(value));
        break;
      case 'undefined':
        v = null;
        break;
      default:
        if (value === null) v = null;
        else if (value instanceof Uint8Array) v = cut(utf8.decode(value));
        else {
          problem = `the value of ${errors.describe(key)} is ${errors.describe(value)}`;
          continue;
        }
    }
    if (v === null) {
      if (keepNull) out[key] = null;
      continue;
    }
    const replaces = present !== null && hasOwn.call(present, key) && present[key] !== null;
    if (!replaces && used >= room) {
      problem = `more than ${MAX_LABELS} labels in all`;
      break;
    }
    out[key] = v;
    if (!replaces) used += 1;
  }
  return problem;
}

// Labels as withLabels takes them (plain object or Map, validated with its
// errors) as a plain object of what readLabels read.
function toObject(labels) {
  const updates = readLabels(labels);
  const out = Object.create(null); // a key `__proto__` stays a key (and is left out later)
  for (let i = 0; i < updates.count; i++) out[updates.keys[i]] = updates.values[i];
  return out;
}

// The labels a sender carried as JSON text (a plain object), or undefined
// with a warning naming `where` (the header or metadata key).
function parseCarried(text, where, warn) {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    warn(`${where} is not JSON`);
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    warn(`${where} is ${errors.describe(parsed)}, not an object`);
    return undefined;
  }
  return parsed;
}

// What options.labels(arg) returned, as an object addLimited reads (each
// value checked there, so one bad value costs only itself), or null.
function ownOf(ownFn, arg, warn, what) {
  let mine;
  try {
    mine = ownFn(arg);
  } catch (err) {
    warn(`${what}: ${err && err.message}`);
    return null;
  }
  if (mine === undefined || mine === null) return null;
  if (mine instanceof Map) {
    try {
      return toObject(mine);
    } catch (err) {
      warn(`${what}: ${err && err.message}`);
      return null;
    }
  }
  if (typeof mine !== 'object' || Array.isArray(mine)) {
    warn(`${what}: returned ${errors.describe(mine)}, not labels`);
    return null;
  }
  return mine;
}

// The labels of a unit of work that came from elsewhere (a gRPC call, an
// AMQP message): `base` (the integration's own, frozen), `ownFn(arg)` (the
// consumer's options.labels: they win, and a null value removes a key; what
// it gets wrong is left out, `what` names it in the warning), then
// `carried` (the sender's, lowest precedence, never a key of `skip`) in the
// room left, all within the Parca agent's labels. Problems go to warn().
function mergeCarried(base, ownFn, arg, carried, skip, warn, what) {
  if (carried === undefined && ownFn === null) return base;
  const out = { ...base };
  let count = 0;
  for (const key in base) if (base[key] !== null) count += 1;
  if (ownFn !== null) {
    const mine = ownOf(ownFn, arg, warn, what);
    if (mine !== null) {
      const own = {};
      const problem = addLimited(own, mine, MAX_LABELS - count, null, true, out);
      if (problem !== null) warn(`${what}: ${problem}`);
      for (const key of Object.keys(own)) {
        const was = hasOwn.call(out, key) && out[key] !== null;
        count += (own[key] !== null ? 1 : 0) - (was ? 1 : 0);
        out[key] = own[key];
      }
    }
  }
  if (carried !== undefined) {
    const problem = addLimited(out, carried, MAX_LABELS - count, skip, false);
    if (problem !== null) warn(problem);
  }
  return out;
}

// What one carrier of labels between processes (a message header, a job's
// data, RPC metadata) sets itself and warns with: `own`, the labels its
// consumer sets (never carried, nor are trace ids: they describe the
// producer's request); warn(reason), one warning per thread
// (`what`: 'job' labels, `runs`: 'jobs' run with the labels that are
// valid; `code`).
function carrier(own, { what, runs, code }) {
  return Object.freeze({
    reserved: new Set(own),
    notCarried: new Set([...own, ...TRACE_IDS]),
    warn: (reason) => warnOnce(`${what}-labels`, `customlabels: ${what} labels not published as given (${reason}); ${runs} run with the labels that are valid`, code),
  });
}

module.exports = { addLimited, toObject, mergeCarried, parseCarried, isPlainObject, carrier, TRACE_IDS };
