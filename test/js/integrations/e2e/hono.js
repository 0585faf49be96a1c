'use strict';

// customlabels/hono end to end (test/js/fixtures/hono-app.js): at every
// checkpoint the reader sees exactly the request's method, route path and
// tenant on the server thread.

const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen } = require('../harness');
const { mixedRequests, statusCounts, countOf } = require('../requests');

const fixture = path.join(__dirname, '..', '..', 'fixtures', 'hono-app.js');

// `server`: what the fixture requires as @hono/node-server.
const run = ({ server = '@hono/node-server', env = {} } = {}) =>
  serveUnderLoad(fixture, [server], mixedRequests({ user: (t) => `/api/v1/users/${100 + t}`, items: () => '/api/v1/items', fail: '/fail' }), 6, env);

function served({ responses }) {
  expect(statusCounts(responses)).toEqual({ 200: 12, 404: 6, 500: 6 });
}

function checkpoints({ run: r }) {
  expect(countOf(r, 'app middleware before next')).toBe(24);
  expect(countOf(r, 'app middleware after next')).toBe(24);
  expect(countOf(r, 'sub-app middleware')).toBe(6);
  expect(countOf(r, 'user handler after awaits')).toBe(6);
  expect(countOf(r, 'user handler after a timer')).toBe(6);
  expect(countOf(r, 'items handler after a chunked body')).toBe(6);
  expect(countOf(r, 'onError')).toBe(6);
  expect(countOf(r, 'notFound')).toBe(6);
  expectEveryCheckpointSeen(r.checkpoints);
}

module.exports = { run, served, checkpoints };
