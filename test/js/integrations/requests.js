'use strict';

// The mixed load the HTTP integration tests send: per tenant and round, a
// user lookup, a POST of a JSON body in delayed chunks, a request that fails
// and one that matches no route, each with `x-tenant` and an `x-id` whose
// first letter names its kind (u, i, f, n), so a fixture knows what to expect.

const { chunkedJson } = require('./http-client');

const tenants = ['acme', 'globex', 'initech'];

// paths: { user(t), items(t), fail, missing(t) }; items: JSON items per body
// (null: the items request is a bodyless POST).
function mixedRequests({ user, items, fail, missing = (t) => `/no/such/${t}`, itemCount = 3000, rounds = 2 }) {
  const out = [];
  for (let round = 0; round < rounds; round++) {
    tenants.forEach((tenant, t) => {
      const id = `${round}-${t}`;
      const headers = { 'x-tenant': tenant };
      out.push({ path: user(t), headers: { ...headers, 'x-id': `u${id}` } });
      if (itemCount === null) {
        out.push({ method: 'POST', path: items(t), headers: { ...headers, 'x-id': `i${id}` } });
      } else {
        out.push({
          method: 'POST',
          path: items(t),
          headers: { ...headers, 'x-id': `i${id}`, 'content-type': 'application/json' },
          chunks: chunkedJson({ items: Array.from({ length: itemCount }, (_, k) => ({ k, tenant })) }, 5),
        });
      }
      out.push({ path: fail, headers: { ...headers, 'x-id': `f${id}` } });
      out.push({ path: missing(t), headers: { ...headers, 'x-id': `n${id}` } });
    });
  }
  return out;
}

// The responses' status codes, counted: { 200: 12, 404: 6, ... }.
function statusCounts(responses) {
  const out = {};
  for (const r of responses) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
}

// How many checkpoints of a run are named `${prefix} <id>`.
const countOf = (run, prefix) => run.checkpoints.filter((c) => c.name.startsWith(`${prefix} `) && !c.name.slice(prefix.length + 1).includes(' ')).length;

module.exports = { tenants, mixedRequests, statusCounts, countOf };
