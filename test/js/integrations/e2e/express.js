'use strict';

// customlabels/express end to end (test/js/fixtures/express-app.js): the
// load, what must be answered, and what the reader must see at every
// checkpoint. express.test.js runs it on the Express versions the
// repository installs, test/versions on every version the range claims.

const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen } = require('../harness');
const { chunkedJson } = require('../http-client');
const { tenants, statusCounts } = require('../requests');

const fixture = path.join(__dirname, '..', '..', 'fixtures', 'express-app.js');

function requestsFor(round) {
  const out = [];
  tenants.forEach((tenant, t) => {
    const id = `${round}-${t}`;
    const headers = { 'x-tenant': tenant };
    out.push({ path: `/api/v1/users/${100 + t}`, headers: { ...headers, 'x-id': `u${id}` } });
    out.push({
      method: 'POST',
      path: '/api/v1/items',
      headers: { ...headers, 'x-id': `i${id}`, 'content-type': 'application/json' },
      chunks: chunkedJson({ items: Array.from({ length: 2000 }, (_, k) => ({ k, tenant })) }, 5),
    });
    out.push({ path: '/fail', headers: { ...headers, 'x-id': `f${id}` } });
    out.push({ path: `/no/such/${t}`, headers: { ...headers, 'x-id': `n${id}` } });
  });
  return out;
}

// `module`: what the fixture requires as Express ('express', 'express4', or
// a path).
const run = ({ module = 'express', env = {} } = {}) => serveUnderLoad(fixture, [module], [...requestsFor(0), ...requestsFor(1)], 6, env);

function served({ responses }) {
  expect(statusCounts(responses)).toEqual({ 200: 12, 404: 6, 500: 6 });
}

function checkpoints({ run: r }) {
  const names = r.checkpoints.map((c) => c.name.replace(/ [a-z0-9-]+$/, ''));
  // Each kind of checkpoint was reached once per request of its kind.
  const count = (prefix) => names.filter((n) => n === prefix).length;
  expect(count('app middleware')).toBe(24);
  expect(count('param callback')).toBe(6);
  expect(count('user handler after awaits')).toBe(6);
  expect(count('items handler after a chunked body')).toBe(6);
  expect(count('items timer')).toBe(6);
  expect(count('error middleware')).toBe(6);
  expect(count('404 handler')).toBe(6);
  expectEveryCheckpointSeen(r.checkpoints);
}

module.exports = { run, served, checkpoints };
