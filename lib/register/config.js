'use strict';

// customlabels/register's configuration, from the environment (docs/register.md
// has the table):
//
//   CUSTOMLABELS_INTEGRATIONS  all (default), none, a list of names
//                              (express,fastify), or all minus some
//                              (-graphql,-otel)
//   CUSTOMLABELS_HEADERS       request headers copied into labels:
//                              x-tenant=tenant,x-region (label = header name
//                              when not given)
//   CUSTOMLABELS_LABELS        labels of the process on every request:
//                              service=checkout,version=1.4.2
//   CUSTOMLABELS_OTEL_ATTRIBUTES
//                              span attributes to labels, over the default
//                              mapping (customlabels/otel): my.attr=label,
//                              -rpc.method (off), or none
//   CUSTOMLABELS_HOOKS         0 for the hook-free mode (lib/core/mode.js reads it)
//
// Every label stays within what the readers keep (lib/integrations/kit/
// limits.js). Bad configuration never stops the app: what is valid
// applies, and one warning (CUSTOMLABELS_REGISTER_CONFIG) at startup lists
// what was not.

const { PARCA, cutValue } = require('../integrations/kit/limits');
const TABLE = require('../integrations');
const { readMaxValues } = require('../integrations/kit/cardinality');

// The names CUSTOMLABELS_INTEGRATIONS takes: those of the table's
// integrations register applies (the others are by hand only).
const INTEGRATIONS = Object.freeze(TABLE.filter((i) => i.reach.length > 0).map((i) => i.name));

// The labels the integrations that are on set themselves, each with the
// integration that sets it (their descriptors' `labels`): configured labels
// must not take their names. otel's trace ids are always its own: they come
// from spans, whether register or the app wires customlabels/otel.
function reservedBy(on) {
  const reserved = new Map();
  for (const i of TABLE) if (on.has(i.name) || i.name === 'otel') for (const label of i.labels) if (!reserved.has(label)) reserved.set(label, i.name);
  return reserved;
}

const utf8Bytes = (s) => Buffer.byteLength(s);
// What is wrong with `key` as the name of a configured label, or null;
// '__proto__' is no name an object keeps.
const keyProblem = (key, reserved) =>
  key === ''
    ? 'an empty label name'
    : key === '__proto__'
      ? 'label name "__proto__" is not one an object keeps'
      : utf8Bytes(key) > PARCA.MAX_KEY_BYTES
        ? `label name "${key}" is longer than ${PARCA.MAX_KEY_BYTES} bytes`
        : reserved.has(key)
          ? `label name "${key}" is set by the ${reserved.get(key)} integration`
          : null;

// The items of a comma-separated list; a comma inside brackets, braces or
// parentheses (an allow-pattern's {1,32}) or after a backslash is the
// item's own.
function items(value) {
  const out = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '\\') i += 1;
    else if (c === '(' || c === '[' || c === '{') depth += 1;
    else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth -= 1;
    else if (c === ',' && depth === 0) {
      out.push(value.slice(start, i));
      start = i + 1;
    }
  }
  out.push(value.slice(start));
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

function integrations(value, problems) {
  const on = new Set(INTEGRATIONS);
  if (value === undefined || value.trim() === '' || value.trim() === 'all') return on;
  const list = items(value);
  if (list.length === 1 && list[0] === 'none') return new Set();
  if (list.includes('none')) problems.push('CUSTOMLABELS_INTEGRATIONS: "none" is a value of its own, not an item of a list');
  const named = list.filter((n) => !n.startsWith('-') && n !== 'all');
  const chosen = named.length > 0 ? new Set() : on;
  for (const item of list) {
    if (item === 'all' || item === 'none') continue;
    const name = item.startsWith('-') ? item.slice(1) : item;
    if (!INTEGRATIONS.includes(name)) {
      problems.push(`CUSTOMLABELS_INTEGRATIONS: unknown integration "${name}" (known: ${INTEGRATIONS.join(', ')})`);
      continue;
    }
    if (item.startsWith('-')) chosen.delete(name);
    else chosen.add(name);
  }
  return chosen;
}

// [[header (lower case), label, allow (a RegExp the whole value must
// match, or null)], ...]: items header=label or header=label:pattern.
function headers(value, problems, reserved) {
  const out = [];
  if (value === undefined) return out;
  for (const item of items(value)) {
    const eq = item.indexOf('=');
    const header = (eq < 0 ? item : item.slice(0, eq)).trim().toLowerCase();
    const rest = eq < 0 ? header : item.slice(eq + 1).trim();
    const colon = eq < 0 ? -1 : rest.indexOf(':');
    const label = colon < 0 ? rest : rest.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(header)) {
      problems.push(`CUSTOMLABELS_HEADERS: "${header}" is not a header name`);
      continue;
    }
    const problem = keyProblem(label, reserved);
    if (problem !== null) {
      problems.push(`CUSTOMLABELS_HEADERS: ${problem}`);
      continue;
    }
    let allow = null;
    if (colon >= 0) {
      try {
        allow = new RegExp(`^(?:${rest.slice(colon + 1)})$`, 'u');
      } catch (err) {
        problems.push(`CUSTOMLABELS_HEADERS: the pattern of label "${label}" is not a regular expression (${err.message}); the header is left out`);
        continue;
      }
    }
    out.push([header, label, allow]);
  }
  return out;
}

function staticLabels(value, problems, reserved) {
  const out = {};
  if (value === undefined) return out;
  for (const item of items(value)) {
    const eq = item.indexOf('=');
    if (eq < 0) {
      problems.push(`CUSTOMLABELS_LABELS: "${item}" is not name=value`);
      continue;
    }
    const key = item.slice(0, eq).trim();
    const v = item.slice(eq + 1).trim();
    const problem = keyProblem(key, reserved);
    if (problem !== null) {
      problems.push(`CUSTOMLABELS_LABELS: ${problem}`);
      continue;
    }
    const cut = cutValue(v);
    if (cut !== v) problems.push(`CUSTOMLABELS_LABELS: the value of "${key}" is cut to ${PARCA.MAX_VALUE_BYTES} bytes`);
    out[key] = cut;
  }
  return out;
}

// { [attribute]: label | null } over customlabels/otel's defaults, or
// false for none. (A span attribute may give any label but otel's own ids.)
function otelAttributes(value, problems) {
  const ids = reservedBy(new Set(['otel']));
  if (value === undefined || value.trim() === '') return {};
  if (value.trim() === 'none') return false;
  const out = Object.create(null);
  for (const item of items(value)) {
    if (item.startsWith('-')) {
      const attribute = item.slice(1).trim();
      if (attribute === '' || attribute === '__proto__') problems.push(`CUSTOMLABELS_OTEL_ATTRIBUTES: "${item}" names no attribute`);
      else out[attribute] = null;
      continue;
    }
    const eq = item.indexOf('=');
    const attribute = (eq < 0 ? item : item.slice(0, eq)).trim();
    const label = eq < 0 ? attribute : item.slice(eq + 1).trim();
    const problem = keyProblem(label, ids);
    if (attribute === '' || attribute === '__proto__' || problem !== null) {
      problems.push(`CUSTOMLABELS_OTEL_ATTRIBUTES: ${problem ?? `"${item}" names no attribute`}`);
      continue;
    }
    out[attribute] = label;
  }
  return out;
}

// The configuration `env` gives, and the problems found in it.
function readConfig(env = process.env) {
  const problems = [];
  const on = integrations(env.CUSTOMLABELS_INTEGRATIONS, problems);
  const reserved = reservedBy(on);
  const config = {
    integrations: on,
    headers: headers(env.CUSTOMLABELS_HEADERS, problems, reserved),
    labels: staticLabels(env.CUSTOMLABELS_LABELS, problems, reserved),
    otelAttributes: otelAttributes(env.CUSTOMLABELS_OTEL_ATTRIBUTES, problems),
  };
  // (Read again where it applies, lib/integrations/kit/cardinality.js: what
  // is wrong with it is said here, once, with the rest.)
  const { problem } = readMaxValues(env.CUSTOMLABELS_MAX_VALUES);
  if (problem !== null) problems.push(problem);
  const perRequest = 2 + config.headers.length + Object.keys(config.labels).length;
  if (perRequest > PARCA.MAX_LABELS) {
    problems.push(
      `${perRequest} labels per request (method, route, ${config.headers.length} headers, ${Object.keys(config.labels).length} process labels) is more than the ${PARCA.MAX_LABELS} the Parca agent keeps; it keeps the first ${PARCA.MAX_LABELS}`,
    );
  }
  return { config: Object.freeze(config), problems };
}

module.exports = { readConfig, INTEGRATIONS };
