'use strict';

// NestJS 10 and 11 on @nestjs/platform-express (Express 4 / 5) and
// @nestjs/platform-fastify (Fastify 4 / 5), with the one line the README
// gives: guards, interceptors, pipes, handlers and exception filters all run
// under the controller route's template (global prefix and URI version
// included), read from outside by the reader.

const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen } = require('./harness');
const { chunkedJson } = require('./http-client');
const { testIf } = require('../helpers');

const fixture = path.join(__dirname, '..', 'fixtures', 'nest-app.js');
const tenants = ['acme', 'globex', 'initech'];
const major = Number(process.versions.node.split('.')[0]);

function requests() {
  const out = [];
  for (const round of [0, 1]) {
    tenants.forEach((tenant, t) => {
      const id = `${round}-${t}`;
      const headers = { 'x-tenant': tenant };
      out.push({ path: `/api/v1/users/${100 + t}`, headers: { ...headers, 'x-id': `u${id}` } });
      out.push({
        method: 'POST',
        path: '/api/v1/items',
        headers: { ...headers, 'x-id': `i${id}`, 'content-type': 'application/json' },
        chunks: chunkedJson({ items: Array.from({ length: 3000 }, (_, k) => ({ k, tenant })) }, 5),
      });
      out.push({ path: '/api/v1/fail', headers: { ...headers, 'x-id': `f${id}` } });
      out.push({ path: `/no/such/${t}`, headers: { ...headers, 'x-id': `n${id}` } });
    });
  }
  return out;
}

describe.each([
  ['nest10', 'express', true],
  ['nest10', 'fastify', true],
  ['nest11', 'express', major >= 20],
  ['nest11', 'fastify', major >= 20],
])('%s on %s', (nest, platform, runs) => {
  let run;
  let responses;
  const testHere = testIf(runs, 'NestJS 11 needs Node.js >= 20');

  beforeAll(async () => {
    if (runs) ({ run, responses } = await serveUnderLoad(fixture, [nest, platform], requests()));
  }, 180000);

  testHere(`${nest} on ${platform}: every request was served and the app closed cleanly`, () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(responses.map((r) => r.status).sort()).toEqual([...Array(6).fill(200), ...Array(6).fill(201), ...Array(6).fill(404), ...Array(6).fill(503)]);
  });

  testHere(`${nest} on ${platform}: guards, interceptors, pipes, handlers and filters run under the route's labels, read from outside`, () => {
    const count = (prefix) => run.checkpoints.filter((c) => c.name.startsWith(`${prefix} `)).length;
    expect(count('guard')).toBe(6);
    expect(count('pipe')).toBe(6);
    expect(count('interceptor before')).toBe(18);
    expect(count('interceptor after')).toBe(12);
    expect(count('handler after awaits')).toBe(6);
    expect(count('handler after a timer')).toBe(6);
    expect(count('handler of a JSON body')).toBe(6);
    expect(count('exception filter')).toBe(6);
    expectEveryCheckpointSeen(run.checkpoints);
  });
});
