'use strict';

// customlabels/koa on Koa 3 and 2 with @koa/router (15 and 12) and
// koa-router, read from outside: at every checkpoint the reader, from
// another process, sees exactly the request's method, route template and
// tenant on the server's thread (or nothing, upstream of labels());
// e2e/koa.js.

const { REGISTERED, asPackage } = require('./harness');
const { testIf } = require('../helpers');
const e2e = require('./e2e/koa');

const major = Number(process.versions.node.split('.')[0]);


// @koa/router 14+ and koa-router 14+ need Node.js >= 20; the versions
// installed here: @koa/router 15, koa-router 13, @koa/router 12.
// By hand, and with customlabels/register (the aliased versions loaded as
// an app has them).
const combos = [
  ['koa', '@koa/router', major >= 20, 'by hand'],
  ['koa', 'koa-router', true, 'by hand'],
  ['koa2', '@koa/router12', true, 'by hand'],
  ['koa', '@koa/router', major >= 20, 'with customlabels/register'],
  ['koa2', '@koa/router12', true, 'with customlabels/register'],
];

describe.each(combos)('%s with %s, wired %s', (koaModule, routerModule, runs, wiring) => {
  let result;
  const testHere = testIf(runs, '@koa/router 15 needs Node.js >= 20');

  beforeAll(async () => {
    const registered = wiring !== 'by hand';
    const as = (alias, name) => (registered && alias !== name ? asPackage(alias, name) : alias);
    if (runs) result = await e2e.run({ koa: as(koaModule, 'koa'), router: as(routerModule, routerModule.replace(/\d+$/, '')), env: registered ? REGISTERED : {} });
  }, 180000);

  testHere(`${koaModule} with ${routerModule}: every request was served and the app exited cleanly`, () => {
    expect(result.run.stderr).toBe('');
    expect(result.run.code).toBe(0);
    e2e.served(result);
  });

  testHere(`${koaModule} with ${routerModule}: at every checkpoint the reader sees exactly that request's labels on the server thread`, () => {
    e2e.checkpoints(result);
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
