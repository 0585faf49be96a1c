'use strict';

// customlabels/koa end to end (test/js/fixtures/koa-app.js): at every
// checkpoint the reader sees exactly the request's method, route template
// and tenant on the server's thread (or nothing, upstream of labels()).

const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen } = require('../harness');
const { mixedRequests, statusCounts, countOf } = require('../requests');

const fixture = path.join(__dirname, '..', '..', 'fixtures', 'koa-app.js');

// `koa`, `router`: what the fixture requires as Koa and as its router
// (@koa/router or koa-router, maybe aliased, or paths).
function run({ koa = 'koa', router = '@koa/router', env = {} } = {}) {
  const requests = mixedRequests({ user: (t) => `/api/v1/users/${100 + t}`, items: (t) => `/api/v1/items/k${t}`, fail: '/api/v1/fail', itemCount: null });
  return serveUnderLoad(fixture, [koa, router], requests, 6, env);
}

function served({ responses }) {
  expect(statusCounts(responses)).toEqual({ 200: 12, 404: 6, 500: 6 });
}

function checkpoints({ run: r }) {
  expect(countOf(r, 'upstream middleware')).toBe(24);
  expect(countOf(r, 'upstream after next')).toBe(18);
  expect(countOf(r, 'router middleware')).toBe(18);
  expect(countOf(r, 'param callback')).toBe(6);
  expect(countOf(r, 'route middleware')).toBe(6);
  expect(countOf(r, 'user handler after awaits')).toBe(6);
  expect(countOf(r, 'items timer')).toBe(6);
  expect(countOf(r, 'items catch')).toBe(6);
  expect(countOf(r, 'app error middleware')).toBe(6);
  expect(countOf(r, '404 fallback')).toBe(6);
  expectEveryCheckpointSeen(r.checkpoints);
}

module.exports = { run, served, checkpoints };
