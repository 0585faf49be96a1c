'use strict';

// customlabels/otel's attribute mapping with OpenTelemetry's own
// instrumentations and no other customlabels integration, read from
// outside: the HTTP server span's method, the framework spans' route, the
// GraphQL operation, and the route the framework instrumentation sets on
// the server span after it was activated (seen in a response listener that
// runs under the server span alone).

const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen } = require('./harness');
const { testIf } = require('../helpers');
const { chunkedJson } = require('./http-client');

const fixture = path.join(__dirname, '..', 'fixtures', 'otel-attributes.js');
const major = Number(process.versions.node.split('.')[0]);
const tenants = ['acme', 'globex', 'initech'];

function requestsFor(variant) {
  const out = [];
  for (let round = 0; round < 2; round++) {
    tenants.forEach((tenant, t) => {
      const id = `u${round}-${t}`;
      if (variant === 'graphql') {
        out.push({
          method: 'POST',
          path: '/graphql',
          headers: { 'x-id': id, 'content-type': 'application/json' },
          chunks: [JSON.stringify({ query: 'query GetUser($id: ID!) { user(id: $id) }', variables: { id }, operationName: 'GetUser' })],
        });
      } else {
        out.push({ path: `/api/users/${t}`, headers: { 'x-id': id } });
        if (variant === 'express') {
          out.push({
            method: 'POST',
            path: '/api/items',
            headers: { 'x-id': `i${round}-${t}`, 'content-type': 'application/json' },
            chunks: chunkedJson({ items: Array.from({ length: 500 }, (_, k) => ({ k })) }, 4),
          });
        }
      }
    });
  }
  return out;
}

describe.each([
  ['express', true, null, { 'middleware before routing': 12, 'handler after awaits': 6, 'request end listener': 6, 'response finish listener': 12 }],
  ['fastify', major >= 20, "@fastify/otel's Fastify 5 needs Node.js >= 20", { onRequest: 6, 'handler after awaits': 6, onResponse: 6 }],
  ['graphql', major >= 20, '@apollo/server 5 needs Node.js >= 20', { 'middleware before routing': 6, 'resolver after an await': 6, 'response finish listener': 6 }],
])('span attributes as labels, %s', (variant, runs, why, kinds) => {
  let run;
  let responses;
  const testHere = testIf(runs, why);

  beforeAll(async () => {
    if (runs) ({ run, responses } = await serveUnderLoad(fixture, [variant], requestsFor(variant), 3));
  }, 120000);

  testHere(`span attributes as labels, ${variant}: every request was served and the app exited cleanly`, () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(responses.map((r) => r.status)).toEqual(Array(variant === 'express' ? 12 : 6).fill(200));
  });

  testHere(`span attributes as labels, ${variant}: at every checkpoint the reader sees the active span's ids and the labels its attributes give`, () => {
    const counts = {};
    for (const cp of run.checkpoints) {
      const kind = cp.name.replace(/ [a-z0-9-]+$/, '');
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
    expect(counts).toEqual(kinds);
    expectEveryCheckpointSeen(run.checkpoints);
  });
});
