'use strict';

// What travels between a gRPC client and server (customlabels/grpc): the
// client's current labels in one binary metadata entry, `customlabels-bin`
// (JSON), without trace ids (the server's span has its own) and rpc.*,
// within the readers' limits; the server reads them back as data from
// another process (kit/carried.js: what is not a valid label is left out,
// one warning).

const { currentLabels } = require('../../index');
const { addLimited, mergeCarried, parseCarried, carrier } = require('../kit/carried');
const { PARCA } = require('../kit/limits');

const SERVICE = 'rpc.service';
const METHOD = 'rpc.method';
const METADATA_KEY = 'customlabels-bin';
const { reserved: RESERVED, notCarried: NOT_FORWARDED, warn } = carrier([SERVICE, METHOD], { what: 'RPC', runs: 'calls', code: 'CUSTOMLABELS_RPC_LABELS' });

// The current labels as the client sends them, or null if none.
function forwardedPayload() {
  const out = {};
  const problem = addLimited(out, currentLabels(), PARCA.MAX_LABELS - RESERVED.size, NOT_FORWARDED, false);
  if (problem !== null) warn(problem);
  return Object.keys(out).length === 0 ? null : Buffer.from(JSON.stringify(out));
}

// The labels a call's client forwarded (a plain object), or undefined.
function forwardedOf(metadata) {
  if (metadata === null || typeof metadata !== 'object' || typeof metadata.get !== 'function') return undefined;
  const values = metadata.get(METADATA_KEY);
  if (!Array.isArray(values) || values.length === 0) return undefined;
  return parseCarried(Buffer.from(values[0]).toString('utf8'), METADATA_KEY, warn);
}

// The call's metadata with the forwarded labels added: a copy, since an app
// may send one Metadata object with many calls (and one the app set itself
// wins).
function withPayload(metadata, payload) {
  if (payload === null || metadata === null || typeof metadata !== 'object' || typeof metadata.get !== 'function' || typeof metadata.clone !== 'function') return metadata;
  if (metadata.get(METADATA_KEY).length !== 0) return metadata;
  const copy = metadata.clone();
  copy.set(METADATA_KEY, payload);
  return copy;
}

// labelsOf(call, base) for the options `{ ownFn, forwarded }`: the call's
// labels over `base` (its service and method, frozen): the client's
// forwarded labels in the room the others leave, options.labels(call)
// winning.
function callLabels({ ownFn, forwarded }) {
  return function labelsOf(call, base) {
    const carried = forwarded ? forwardedOf(call.metadata) : undefined;
    return mergeCarried(base, ownFn, call, carried, NOT_FORWARDED, warn, 'options.labels(call)');
  };
}

module.exports = { SERVICE, METHOD, METADATA_KEY, forwardedPayload, withPayload, callLabels, warn };
