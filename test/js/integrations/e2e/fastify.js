'use strict';

// customlabels/fastify end to end (test/js/fixtures/fastify-app.js): from
// onRequest on, every later hook, the body parser, the handler, onSend and
// onResponse run with exactly the request's method, route and tenant.

const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen } = require('../harness');
const { chunkedJson } = require('../http-client');
const { tenants, statusCounts } = require('../requests');

const fixture = path.join(__dirname, '..', '..', 'fixtures', 'fastify-app.js');

function requests() {
  const out = [];
  for (const round of [0, 1]) {
    tenants.forEach((tenant, t) => {
      const id = `${round}-${t}`;
      const headers = { 'x-tenant': tenant };
      out.push({ path: `/api/v1/users/${t}`, headers: { ...headers, 'x-id': `u${id}` } });
      out.push({
        method: 'POST',
        path: '/api/v1/items',
        headers: { ...headers, 'x-id': `i${id}`, 'content-type': 'application/json' },
        chunks: chunkedJson({ items: Array.from({ length: 5000 }, (_, k) => ({ k, tenant })) }, 6),
      });
      out.push({ method: 'POST', path: '/count', headers: { ...headers, 'x-id': `c${id}`, 'content-type': 'application/x-count' }, chunks: ['a'.repeat(1000), 'b'.repeat(1000), 'c'] });
      out.push({ path: `/nothing/here/${t}`, headers: { ...headers, 'x-id': `n${id}` } });
    });
  }
  return out;
}

const run = ({ module = 'fastify', env = {} } = {}) => serveUnderLoad(fixture, [module], requests(), 6, env);

function served({ responses }) {
  expect(statusCounts(responses)).toEqual({ 200: 18, 404: 6 });
}

function checkpoints({ run: r }) {
  const count = (prefix) => r.checkpoints.filter((c) => c.name.startsWith(`${prefix} `)).length;
  expect(count('preHandler')).toBe(12);
  expect(count('handler after awaits')).toBe(6);
  expect(count('handler after a chunked body')).toBe(6);
  expect(count('body parser')).toBe(6);
  expect(count('404 handler')).toBe(6);
  expect(count('onSend')).toBe(24);
  expect(count('onResponse')).toBe(24);
  expectEveryCheckpointSeen(r.checkpoints);
}

module.exports = { run, served, checkpoints };
