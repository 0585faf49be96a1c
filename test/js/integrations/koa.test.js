'use strict';

// customlabels/koa on Koa 3 and 2 with @koa/router (15 and 12) and
// koa-router, read from outside: at every checkpoint the reader, from
// another process, sees exactly the request's method, route template and
// tenant on the server's thread (or nothing, upstream of labels()).

const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen } = require('./harness');
const { testIf } = require('../helpers');

const fixture = path.join(__dirname, '..', 'fixtures', 'koa-app.js');
const tenants = ['acme', 'globex', 'initech'];
const major = Number(process.versions.node.split('.')[0]);

function requests() {
  const out = [];
  for (const round of [0, 1]) {
    tenants.forEach((tenant, t) => {
      const id = `${round}-${t}`;
      const headers = { 'x-tenant': tenant };
      out.push({ path: `/api/v1/users/${100 + t}`, headers: { ...headers, 'x-id': `u${id}` } });
      out.push({ method: 'POST', path: `/api/v1/items/k${t}`, headers: { ...headers, 'x-id': `i${id}` } });
      out.push({ path: '/api/v1/fail', headers: { ...headers, 'x-id': `f${id}` } });
      out.push({ path: `/no/such/${t}`, headers: { ...headers, 'x-id': `n${id}` } });
    });
  }
  return out;
}

// @koa/router 14+ and koa-router 14+ need Node.js >= 20; the versions
// installed here: @koa/router 15, koa-router 13, @koa/router 12.
const combos = [
  ['koa', '@koa/router', major >= 20],
  ['koa', 'koa-router', true],
  ['koa2', '@koa/router12', true],
];

describe.each(combos)('%s with %s', (koaModule, routerModule, runs) => {
  let run;
  let responses;
  const testHere = testIf(runs, '@koa/router 15 needs Node.js >= 20');

  beforeAll(async () => {
    if (runs) ({ run, responses } = await serveUnderLoad(fixture, [koaModule, routerModule], requests()));
  }, 180000);

  testHere(`${koaModule} with ${routerModule}: every request was served and the app exited cleanly`, () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(responses.map((r) => r.status).sort()).toEqual([...Array(12).fill(200), ...Array(6).fill(404), ...Array(6).fill(500)]);
  });

  testHere(`${koaModule} with ${routerModule}: at every checkpoint the reader sees exactly that request's labels on the server thread`, () => {
    const count = (prefix) => run.checkpoints.filter((c) => c.name.startsWith(`${prefix} `)).length;
    expect(count('upstream middleware')).toBe(24);
    expect(count('upstream after next')).toBe(18);
    expect(count('router middleware')).toBe(18);
    expect(count('param callback')).toBe(6);
    expect(count('route middleware')).toBe(6);
    expect(count('user handler after awaits')).toBe(6);
    expect(count('items timer')).toBe(6);
    expect(count('items catch')).toBe(6);
    expect(count('app error middleware')).toBe(6);
    expect(count('404 fallback')).toBe(6);
    expectEveryCheckpointSeen(run.checkpoints);
  });
});

test('koa: `route: false` labels the method alone; bad options and a non-router given to instrument() throw TypeErrors with stable codes', async () => {
  const { runNode } = require('../helpers');
  const out = await runNode(`
    const http = require('node:http');
    const Koa = require('koa');
    const { labels, instrument } = require('./lib/integrations/koa');
    const Router = require('koa-router'); // 13: runs on Node.js 18 too
    const { currentLabels } = require('.');
    const codes = [];
    for (const bad of [() => labels({ labels: 1 }), () => labels(null), () => instrument({})]) {
      try { bad(); } catch (e) { codes.push(e.name + ' ' + e.code); }
    }
    const app = new Koa();
    app.use(labels({ route: false }));
    const router = new Router();
    router.get('/x/:id', (ctx) => { ctx.body = currentLabels(); });
    app.use(router.routes());
    const server = app.listen(0, '127.0.0.1', () => {
      http.get({ host: '127.0.0.1', port: server.address().port, path: '/x/1' }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => { console.log(JSON.stringify({ codes, labels: JSON.parse(body) })); server.close(); });
      });
    });
  `);
  expect(out.stderr).toBe('');
  expect(JSON.parse(out.stdout)).toEqual({
    codes: ['TypeError ERR_CUSTOMLABELS_INVALID_OPTION', 'TypeError ERR_CUSTOMLABELS_INVALID_OPTION', 'TypeError ERR_CUSTOMLABELS_INVALID_ARG_TYPE'],
    labels: { method: 'GET' },
  });
});
