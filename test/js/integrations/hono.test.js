'use strict';

// customlabels/hono on Hono 4 with @hono/node-server 2 and 1, read from
// outside: at every checkpoint the reader, from another process, sees
// exactly the request's method, route path and tenant on the server thread
// (e2e/hono.js).

const { REGISTERED } = require('./harness');
const { testIf, runNode } = require('../helpers');
const e2e = require('./e2e/hono');
const major = Number(process.versions.node.split('.')[0]);


describe.each([
  ['@hono/node-server', major >= 20, 'by hand'],
  ['@hono/node-server1', true, 'by hand'],
  ['@hono/node-server1', true, 'with customlabels/register'],
])('hono on %s, wired %s', (serverModule, runs, wiring) => {
  let result;
  const testHere = testIf(runs, '@hono/node-server 2 needs Node.js >= 20');

  beforeAll(async () => {
    if (runs) result = await e2e.run({ server: serverModule, env: wiring === 'by hand' ? {} : REGISTERED });
  }, 180000);

  testHere(`hono on ${serverModule}: every request was served and the server closed cleanly`, () => {
    expect(result.run.stderr).toBe('');
    expect(result.run.code).toBe(0);
    e2e.served(result);
  });

  testHere(`hono on ${serverModule}: at every checkpoint the reader sees exactly that request's labels on the server thread`, () => {
    e2e.checkpoints(result);
  });
});

test('hono: `route: false` labels the method alone; app.all() routes are routes; bad options throw a TypeError with a stable code', async () => {
  const out = await runNode(`
    const { Hono } = require('hono');
    const { labels } = require('./lib/integrations/hono');
    const { currentLabels } = require('.');
    (async () => {
      const plain = new Hono();
      plain.use(labels({ route: false }));
      plain.get('/x/:id', (c) => c.json(currentLabels()));
      const all = new Hono();
      all.use(labels());
      all.use('/a/*', async (c, next) => next());
      all.all('/a/b', (c) => c.json(currentLabels()));
      let err;
      try { labels({ route: 'yes' }); } catch (e) { err = e; }
      console.log(JSON.stringify({
        plain: await (await plain.request('/x/1')).json(),
        all: await (await all.request('/a/b', { method: 'PUT' })).json(),
        err: { name: err.name, code: err.code },
      }));
    })();
  `);
  expect(out.stderr).toBe('');
  expect(JSON.parse(out.stdout)).toEqual({
    plain: { method: 'GET' },
    all: { method: 'PUT', route: '/a/b' },
    err: { name: 'TypeError', code: 'ERR_CUSTOMLABELS_INVALID_OPTION' },
  });
});

test('hono under register: an app on any of Hono\'s routers, the default SmartRouter or one it is given, is labelled', async () => {
  const out = await runNode(
    `const { Hono } = require('hono');
    const { currentLabels } = require('.');
    (async () => {
      const seen = {};
      for (const [name, make] of [
        ['default', () => undefined],
        ['RegExpRouter', () => new (require('hono/router/reg-exp-router').RegExpRouter)()],
        ['TrieRouter', () => new (require('hono/router/trie-router').TrieRouter)()],
        ['PatternRouter', () => new (require('hono/router/pattern-router').PatternRouter)()],
        ['LinearRouter', () => new (require('hono/router/linear-router').LinearRouter)()],
      ]) {
        const router = make();
        const app = new Hono(router === undefined ? {} : { router });
        app.get('/u/:id', (c) => c.json(currentLabels()));
        seen[name] = await (await app.request('/u/1')).json();
      }
      console.log(JSON.stringify(seen));
    })();`,
    { args: ['--require', './lib/register.js'] },
  );
  expect(out.stderr).toBe('');
  const labelled = { method: 'GET', route: '/u/:id' };
  expect(JSON.parse(out.stdout)).toEqual({ default: labelled, RegExpRouter: labelled, TrieRouter: labelled, PatternRouter: labelled, LinearRouter: labelled });
});
