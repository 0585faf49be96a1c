'use strict';

// customlabels/hapi end to end (test/js/fixtures/hapi-app.js): at every
// checkpoint of the request lifecycle the reader sees exactly the request's
// method, route path and tenant on the server thread.

const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen } = require('../harness');
const { mixedRequests, statusCounts, countOf } = require('../requests');

const fixture = path.join(__dirname, '..', '..', 'fixtures', 'hapi-app.js');

const run = ({ env = {} } = {}) =>
  serveUnderLoad(fixture, [], mixedRequests({ user: (t) => `/api/v1/users/${100 + t}`, items: () => '/api/v1/items', fail: '/api/v1/fail' }), 6, env);

function served({ responses }) {
  expect(statusCounts(responses)).toEqual({ 200: 12, 404: 6, 500: 6 });
}

function checkpoints({ run: r }) {
  expect(countOf(r, 'onRequest')).toBe(24);
  expect(countOf(r, 'onPreAuth')).toBe(18); // not for 404s: hapi's notFound route has no lifecycle before its handler
  expect(countOf(r, 'auth scheme')).toBe(6);
  expect(countOf(r, 'params validation')).toBe(6);
  expect(countOf(r, 'pre-handler')).toBe(6);
  expect(countOf(r, 'handler after awaits')).toBe(6);
  expect(countOf(r, 'handler after a timer')).toBe(6);
  expect(countOf(r, 'response validation')).toBe(6);
  expect(countOf(r, 'handler of a chunked payload')).toBe(6);
  expect(countOf(r, 'onPreResponse')).toBe(24);
  expect(countOf(r, 'onPostResponse')).toBe(24);
  expectEveryCheckpointSeen(r.checkpoints);
}

module.exports = { run, served, checkpoints };
