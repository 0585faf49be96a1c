'use strict';

// NestJS 10 and 11 on @nestjs/platform-express (Express 4 / 5) and
// @nestjs/platform-fastify (Fastify 4 / 5), with the one line the README
// gives: guards, interceptors, pipes, handlers and exception filters all run
// under the controller route's template (global prefix and URI version
// included), read from outside by the reader.

const path = require('node:path');
const { REGISTERED, serveUnderLoad, expectEveryCheckpointSeen } = require('./harness');
const { mixedRequests, statusCounts, countOf } = require('./requests');
const { testIf } = require('../helpers');

const fixture = path.join(__dirname, '..', 'fixtures', 'nest-app.js');
const major = Number(process.versions.node.split('.')[0]);


// By hand, and through customlabels/register (which labels the platform).
describe.each([
  ['nest10', 'express', true, 'by hand'],
  ['nest10', 'fastify', true, 'by hand'],
  ['nest11', 'express', major >= 20, 'by hand'],
  ['nest11', 'fastify', major >= 20, 'by hand'],
  ['nest11', 'express', major >= 20, 'with customlabels/register'],
  ['nest11', 'fastify', major >= 20, 'with customlabels/register'],
])('%s on %s, wired %s', (nest, platform, runs, wiring) => {
  let run;
  let responses;
  const testHere = testIf(runs, 'NestJS 11 needs Node.js >= 20');

  beforeAll(async () => {
    if (runs) ({ run, responses } = await serveUnderLoad(fixture, [nest, platform], mixedRequests({ user: (t) => `/api/v1/users/${100 + t}`, items: () => '/api/v1/items', fail: '/api/v1/fail' }), 6, wiring === 'by hand' ? {} : REGISTERED));
  }, 180000);

  testHere(`${nest} on ${platform}: every request was served and the app closed cleanly`, () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(statusCounts(responses)).toEqual({ 200: 6, 201: 6, 404: 6, 503: 6 });
  });

  testHere(`${nest} on ${platform}: guards, interceptors, pipes, handlers and filters run under the route's labels, read from outside`, () => {
    expect(countOf(run, 'guard')).toBe(6);
    expect(countOf(run, 'pipe')).toBe(6);
    expect(countOf(run, 'interceptor before')).toBe(18);
    expect(countOf(run, 'interceptor after')).toBe(12);
    expect(countOf(run, 'handler after awaits')).toBe(6);
    expect(countOf(run, 'handler after a timer')).toBe(6);
    expect(countOf(run, 'handler of a JSON body')).toBe(6);
    expect(countOf(run, 'exception filter')).toBe(6);
    expectEveryCheckpointSeen(run.checkpoints);
  });
});
