'use strict';

// Span attributes as labels (customlabels/otel): by default these
// attributes of the active span become labels (the first one present wins
// where several give one label):
//   http.route, next.route                   route (next.route without its
//                                            /page or /route suffix)
//   http.request.method, http.method         method
//   rpc.service, rpc.method                  rpc.service, rpc.method
//   messaging.destination.name               queue
//   graphql.operation.name, .type            graphql.operation, graphql.type
// options.attributes adds to them ({ 'my.attr': 'label' }) or turns one off
// ({ 'rpc.method': null }); `attributes: false` turns all off. Values are
// cut to what readers keep (53 bytes); only strings, numbers and booleans
// count. Attributes that make a new value per request (ids, full URLs,
// addresses, statements: HIGH_CARDINALITY) are refused unless the mapping
// says { label, highCardinality: true }.

const errors = require('../../core/errors');
const { cutValue } = require('../kit/limits');
const { capValue } = require('../kit/cardinality');

// [attribute, label] in order of precedence; a label is given by the first
// attribute present.
const DEFAULT_ATTRIBUTES = Object.freeze([
  ['http.route', 'route'],
  ['next.route', 'route'],
  ['http.request.method', 'method'],
  ['http.method', 'method'],
  ['rpc.service', 'rpc.service'],
  ['rpc.method', 'rpc.method'],
  ['messaging.destination.name', 'queue'],
  ['graphql.operation.name', 'graphql.operation'],
  ['graphql.operation.type', 'graphql.type'],
]);
// Attributes whose values are new per request (refused by default).
const HIGH_CARDINALITY = new Set([
  'url.full', 'url.path', 'url.query', 'url.fragment', 'http.url', 'http.target', 'http.client_ip',
  'client.address', 'client.port', 'server.port', 'network.peer.address', 'network.peer.port',
  'network.local.address', 'network.local.port', 'user_agent.original', 'http.user_agent',
  'db.statement', 'db.query.text', 'graphql.document', 'exception.message', 'exception.stacktrace',
]);
const isHighCardinality = (attribute) => HIGH_CARDINALITY.has(attribute) || /(^|[._])(id|uuid)$/i.test(attribute);
// next.route of an app route handler is '/api/items/[id]/route' on Next.js 15.
const VALUE_OF = { 'next.route': (v) => v.replace(/\/(route|page)$/, '') || '/' };

// The mapping options.attributes asks for: [[attribute, label], ...].
function attributeMapping(option) {
  if (option === false) return [];
  if (option === undefined || option === null) return DEFAULT_ATTRIBUTES;
  if (typeof option !== 'object' || Array.isArray(option)) throw errors.invalidOption('attributes', 'an object (attribute -> label) or false', option);
  const out = new Map(DEFAULT_ATTRIBUTES);
  for (const [attribute, spec] of Object.entries(option)) {
    if (spec === null || spec === false) {
      out.delete(attribute);
      continue;
    }
    const label = typeof spec === 'string' ? spec : spec !== null && typeof spec === 'object' ? spec.label : undefined;
    if (typeof label !== 'string' || label === '') {
      throw errors.invalidOption(`attributes['${attribute}']`, "a label name, { label, highCardinality }, or null", spec);
    }
    if (isHighCardinality(attribute) && !(typeof spec === 'object' && spec.highCardinality === true)) {
      const err = new TypeError(
        `customlabels/otel: attribute "${attribute}" has a new value per request (an id, a full URL, an address): every request would build a label set of its own and profiles could not be grouped by it. Map it with { label: '${label}', highCardinality: true } if that is what you want.`,
      );
      err.code = 'ERR_CUSTOMLABELS_HIGH_CARDINALITY';
      throw err;
    }
    out.set(attribute, label);
  }
  return [...out];
}

// The labels `attributes` (a span's) give under `mapping`, or null if none;
// `route`: the route its RPC metadata holds (below), standing in for an
// http.route the span does not have yet.
function labelsOfAttributes(attributes, mapping, route) {
  if ((attributes === null || typeof attributes !== 'object') && route === undefined) return null;
  let out = null;
  for (let i = 0; i < mapping.length; i++) {
    const [attribute, label] = mapping[i];
    if (out !== null && out[label] !== undefined) continue;
    let v = attributes !== null && typeof attributes === 'object' ? attributes[attribute] : undefined;
    if (v === undefined && attribute === 'http.route') v = route;
    if (typeof v === 'number' || typeof v === 'boolean') v = String(v);
    else if (typeof v !== 'string' || v === '') continue;
    const transform = VALUE_OF[attribute];
    if (transform !== undefined) v = transform(v);
    if (out === null) out = {};
    // A route template is the app's; any other attribute may carry what a
    // client chose (kit/cardinality.js).
    out[label] = attribute === 'http.route' ? cutValue(v) : capValue(label, cutValue(v));
  }
  return out;
}

function sameLabels(a, b) {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (a[k] !== b[k]) return false;
  return true;
}

module.exports = { DEFAULT_ATTRIBUTES, attributeMapping, labelsOfAttributes, sameLabels };
