'use strict';

// customlabels/register: an app with no line of customlabels in it, run with
// --import / --require customlabels/register, is labelled as the hand-wired
// integrations label it, read from outside. (The CommonJS fixtures of each
// framework run with register too: express, fastify, koa, hapi, hono,
// graphql, bullmq tests.) Here: ESM apps, the configuration from the
// environment and its warnings, an app that also wires an integration by
// hand, and what register leaves alone.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Module = require('node:module');
const { serveUnderLoad, expectEveryCheckpointSeen, REGISTERED } = require('./harness');
const { root, runNode, testIf } = require('../helpers');

const major = Number(process.versions.node.split('.')[0]);

const fixture = path.join(__dirname, '..', 'fixtures', 'register-esm.mjs');
const registerHooks = typeof Module.registerHooks === 'function';
const tenants = ['acme', 'globex', 'initech'];

function requests() {
  const out = [];
  for (let round = 0; round < 2; round++) {
    tenants.forEach((tenant, t) => {
      out.push({ path: `/api/users/${t}`, headers: { 'x-tenant': tenant, 'x-id': `u${round}-${t}` } });
      out.push({ path: `/no/such/${t}`, headers: { 'x-tenant': tenant, 'x-id': `n${round}-${t}` } });
    });
  }
  return out;
}

const ESM = { ...REGISTERED, NODE_OPTIONS: REGISTERED.NODE_OPTIONS.replace('--require customlabels/register', '--import customlabels/register') };

// The ESM builds of Hono and @koa/router are ESM-only modules: seen through
// module.registerHooks (Node.js >= 22.15), else not at all (the README says
// to add their line there): Hono's requests run under the HTTP
// integration's labels alone (no route), Koa's without their route.
// (@koa/router 15 needs Node.js >= 20.)
describe.each([
  ['express', 'labels', true],
  ['fastify', 'labels', true],
  ['koa', registerHooks ? 'labels' : 'no-route', major >= 20],
  ['hono', registerHooks ? 'labels' : 'http', true],
])('an ESM %s app under --import customlabels/register', (framework, expecting, runs) => {
  let run;
  let responses;
  const testHere = testIf(runs, '@koa/router 15 needs Node.js >= 20');

  beforeAll(async () => {
    if (!runs) return;
    ({ run, responses } = await serveUnderLoad(fixture, [framework], requests(), 4, { ...ESM, CUSTOMLABELS_FIXTURE_EXPECT: expecting }));
  }, 120000);

  testHere(`${framework}: every request was served, and the app exited cleanly`, () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(responses.map((r) => r.status).sort()).toEqual([...Array(6).fill(200), ...Array(6).fill(404)]);
  });

  testHere(
    expecting === 'labels'
      ? `${framework}: at every checkpoint the reader sees method, route template and tenant`
      : `${framework}: without module.registerHooks its ESM-only build is not seen (${expecting === 'http' ? 'method and tenant alone' : 'no route'}), as the README says`,
    () => {
      expect(run.checkpoints).toHaveLength(12);
      expectEveryCheckpointSeen(run.checkpoints);
    },
  );
});

// Runs `source` (CommonJS) with register preloaded and `env`, in `cwd`
// (the package's root unless said).
function withRegister(source, env = {}, how = '--require', cwd = undefined) {
  return runNode(source, { args: [how, 'customlabels/register'], env: { CUSTOMLABELS_HEADERS: '', ...env }, cwd });
}

describe('configuration from the environment', () => {
  test('process labels and header labels join every request\'s method and route', async () => {
    const r = await withRegister(
      `const express = require('express');
      const { currentLabels } = require('.');
      const app = express();
      app.get('/t/:id', (req, res) => res.json(currentLabels()));
      const server = app.listen(0, '127.0.0.1', async () => {
        const res = await fetch('http://127.0.0.1:' + server.address().port + '/t/1', { headers: { 'X-Tenant': 'acme', 'x-region': 'eu-' + 'x'.repeat(80) } });
        console.log(JSON.stringify(await res.json()));
        server.close();
      });`,
      { CUSTOMLABELS_HEADERS: 'x-tenant=tenant, x-region', CUSTOMLABELS_LABELS: 'service=checkout,version=1.4.2' },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      service: 'checkout',
      version: '1.4.2',
      method: 'GET',
      route: '/t/:id',
      tenant: 'acme',
      // cut to the 53 bytes readers keep
      'x-region': `eu-${'x'.repeat(50)}`,
    });
  });

  test('bad configuration is one warning at startup; what is valid applies, and the app starts', async () => {
    const r = await withRegister(
      `const express = require('express');
      const { currentLabels } = require('.');
      const app = express();
      app.get('/', (req, res) => res.json(currentLabels()));
      const server = app.listen(0, '127.0.0.1', async () => {
        const res = await fetch('http://127.0.0.1:' + server.address().port + '/', { headers: { 'x-tenant': 'acme' } });
        console.log(JSON.stringify(await res.json()));
        server.close();
      });`,
      {
        CUSTOMLABELS_INTEGRATIONS: 'express,nosuch,none',
        CUSTOMLABELS_HEADERS: 'x-tenant=tenant,bad header,x-long=' + 'k'.repeat(30),
        CUSTOMLABELS_LABELS: 'service=checkout,broken,route=/x,__proto__=x,trace_id=1',
        CUSTOMLABELS_OTEL_ATTRIBUTES: '-,-__proto__,app.tier=tier',
      },
    );
    const warnings = r.stderr.match(/Warning: .*/g);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Warning: customlabels\/register: /);
    for (const part of [
      'CUSTOMLABELS_INTEGRATIONS: unknown integration "nosuch"',
      'CUSTOMLABELS_HEADERS: "bad header" is not a header name',
      `CUSTOMLABELS_HEADERS: label name "${'k'.repeat(30)}" is longer than 25 bytes`,
      'CUSTOMLABELS_LABELS: "broken" is not name=value',
      // Only express is on: the name is its, and trace ids are always otel's.
      'CUSTOMLABELS_LABELS: label name "route" is set by the express integration',
      'CUSTOMLABELS_LABELS: label name "__proto__" is not one an object keeps',
      'CUSTOMLABELS_LABELS: label name "trace_id" is set by the otel integration',
      'CUSTOMLABELS_INTEGRATIONS: "none" is a value of its own, not an item of a list',
      'CUSTOMLABELS_OTEL_ATTRIBUTES: "-" names no attribute',
      'CUSTOMLABELS_OTEL_ATTRIBUTES: "-__proto__" names no attribute',
      'The rest of the configuration applies.',
    ]) {
      expect(warnings[0]).toContain(part);
    }
    expect(JSON.parse(r.stdout)).toEqual({ service: 'checkout', method: 'GET', route: '/', tenant: 'acme' });
  });

  test('CUSTOMLABELS_INTEGRATIONS leaves the integrations it does not name alone (-express: the HTTP integration\'s method, no route)', async () => {
    const r = await withRegister(
      `const express = require('express');
      const { currentLabels } = require('.');
      const app = express();
      app.get('/', (req, res) => res.json(currentLabels()));
      const server = app.listen(0, '127.0.0.1', async () => {
        const res = await fetch('http://127.0.0.1:' + server.address().port + '/');
        console.log(JSON.stringify(await res.json()));
        server.close();
      });`,
      { CUSTOMLABELS_INTEGRATIONS: '-express' },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ method: 'GET' });
  });
});

describe('an app that also wires an integration by hand', () => {
  test('express: the labels() middleware of the app takes over from its first request, with its options; labels are never doubled', async () => {
    const r = await withRegister(
      `const express = require('express');
      const { labels } = require('customlabels/express');
      const { currentLabels } = require('.');
      const app = express();
      app.use(labels({ labels: (req) => ({ mine: 'yes' }) }));
      app.get('/u/:id', (req, res) => res.json(currentLabels()));
      const server = app.listen(0, '127.0.0.1', async () => {
        const out = [];
        for (let i = 0; i < 3; i++) {
          const res = await fetch('http://127.0.0.1:' + server.address().port + '/u/' + i, { headers: { 'x-tenant': 'acme' } });
          out.push(await res.json());
        }
        console.log(JSON.stringify(out));
        server.close();
      });`,
      { CUSTOMLABELS_HEADERS: 'x-tenant=tenant' },
    );
    expect(r.stderr).toBe('');
    // register's header label joins the hand-wired labels (register handed the app its configuration: kit/takeover.js).
    expect(JSON.parse(r.stdout)).toEqual(Array(3).fill({ method: 'GET', route: '/u/:id', tenant: 'acme', mine: 'yes' }));
  });

  // An Express app is a function: it is marked and handed register's
  // configuration all the same. Register's wrapper runs before the app's
  // middleware, so the app's options hold from its first request only
  // because register finds that middleware at the root of the app's stack.
  // A labels() on a path leaves the app's other requests to register; a
  // sub-app adds nothing to a request its parent's labels() labelled.
  // Express 4 runs from a directory where it is `express` (register patches
  // the package by that name; the tests' copy is aliased express4).
  const handWired = `const { currentLabels } = require('customlabels');
    const { labels } = require('customlabels/express');
    const express = require('express');
    const serve = (listen, paths) => new Promise((resolve) => {
      const server = listen(async () => {
        const out = [];
        for (const p of paths) {
          const res = await fetch('http://127.0.0.1:' + server.address().port + p, { headers: { 'x-tenant': 'acme' } });
          out.push(await res.json());
        }
        server.close();
        resolve(out);
      });
    });
    const reply = (req, res) => res.json(currentLabels());
    (async () => {
      const app = express();
      app.use(labels({ route: false, labels: () => ({ mine: 'express' }) }));
      app.get('/u/:id', reply);
      const admin = express();
      admin.get('/u/:id', reply);
      app.use('/admin', admin);
      const api = express();
      api.use('/api', labels({ labels: () => ({ mine: 'api' }) }));
      api.get('/api/u/:id', reply);
      api.get('/other/:id', reply);
      const out = {
        version: require('express/package.json').version.split('.')[0],
        root: await serve((cb) => app.listen(0, '127.0.0.1', cb), ['/u/1', '/u/2', '/admin/u/3', '/u/4']),
        path: await serve((cb) => api.listen(0, '127.0.0.1', cb), ['/other/1', '/api/u/2', '/other/3']),
      };
      if (process.env.WITH_KOA === '1') {
        const Koa = require('koa');
        const Router = require('koa-router'); // 13: runs on Node.js 18 too (@koa/router 15 does not)
        const koa = new Koa();
        koa.use(require('customlabels/koa').labels({ route: false, labels: () => ({ mine: 'koa' }) }));
        const router = new Router();
        router.get('/u/:id', (ctx) => { ctx.body = currentLabels(); });
        koa.use(router.routes());
        out.koa = await serve((cb) => koa.listen(0, '127.0.0.1', cb), ['/u/1', '/u/2', '/u/3']);
      }
      console.log(JSON.stringify(out));
    })();`;
  const express4Dir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-express4-'));
    const modules = path.join(dir, 'node_modules');
    fs.mkdirSync(modules);
    fs.symlinkSync(path.join(root, 'node_modules', 'express4'), path.join(modules, 'express'), 'dir');
    fs.symlinkSync(root, path.join(modules, 'customlabels'), 'dir');
    return dir;
  };
  for (const [name, integrations] of [
    ['with the HTTP integration\'s scope', ''],
    ['without it (CUSTOMLABELS_INTEGRATIONS=-http)', '-http'],
  ]) {
    test(`express 5 and 4, koa: the app's own options hold from its first request (route: false), and register's headers join, ${name}`, async () => {
      const env = { CUSTOMLABELS_HEADERS: 'x-tenant=tenant', CUSTOMLABELS_INTEGRATIONS: integrations };
      const dir = express4Dir();
      let runs;
      try {
        runs = await Promise.all([withRegister(handWired, { ...env, WITH_KOA: '1' }), withRegister(handWired, env, '--require', dir)]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      const express = (version) => ({
        version,
        root: Array(4).fill({ method: 'GET', tenant: 'acme', mine: 'express' }),
        path: [
          { method: 'GET', tenant: 'acme', route: '/other/:id' },
          { method: 'GET', tenant: 'acme', route: '/api/u/:id', mine: 'api' },
          { method: 'GET', tenant: 'acme', route: '/other/:id' },
        ],
      });
      expect(runs.map((r) => r.stderr)).toEqual(['', '']);
      expect(JSON.parse(runs[0].stdout)).toEqual({ ...express('5'), koa: Array(3).fill({ method: 'GET', tenant: 'acme', mine: 'koa' }) });
      expect(JSON.parse(runs[1].stdout)).toEqual(express('4'));
    });
  }

  test('fastify: a registration of the plugin by the app replaces register\'s hook; labels are never doubled', async () => {
    const r = await withRegister(
      `const Fastify = require('fastify');
      const { currentLabels } = require('.');
      const app = Fastify({ forceCloseConnections: true });
      let calls = 0;
      app.register(require('customlabels/fastify'), { labels: () => { calls++; return { mine: 'yes' }; } });
      app.get('/u/:id', async () => currentLabels());
      app.listen({ port: 0, host: '127.0.0.1' }).then(async () => {
        const out = [];
        for (let i = 0; i < 3; i++) {
          const res = await fetch('http://127.0.0.1:' + app.server.address().port + '/u/' + i, { headers: { 'x-tenant': 'acme' } });
          out.push(await res.json());
        }
        console.log(JSON.stringify({ out, calls }));
        await app.close();
      });`,
      { CUSTOMLABELS_HEADERS: 'x-tenant=tenant' },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ out: Array(3).fill({ method: 'GET', route: '/u/:id', tenant: 'acme', mine: 'yes' }), calls: 3 });
  });

  test('register starts once, whether loaded by --require and --import together or from two copies', async () => {
    const r = await runNode(
      `const s = globalThis[Symbol.for('customlabels.register.started')];
      require('./lib/register.js');
      console.log(JSON.stringify({ started: s !== undefined, same: s === globalThis[Symbol.for('customlabels.register.started')] }));`,
      { args: ['--require', 'customlabels/register', '--import', 'customlabels/register'] },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ started: true, same: true });
  });
});

test('register requires no framework itself: a plain script loads nothing but customlabels\' own dependencies', async () => {
  const r = await withRegister(
    `console.log(JSON.stringify([...new Set(Object.keys(require.cache).filter((f) => f.includes('/node_modules/')).map((f) => f.split('/node_modules/').pop().split('/')[0]))]));`,
  );
  expect(r.stderr).toBe('');
  // semver reads the table's ranges; nothing else from node_modules loads.
  expect(JSON.parse(r.stdout)).toEqual(['semver']);
});

// module.registerHooks costs every module load (docs/register.md "Set up in one
// line"): register installs it only for an ES module entry with a package
// installed whose own ESM build it must see (here a stand-in for Hono).
// (Without module.registerHooks, Node < 22.15, never.)
test('an ESM app gets module.registerHooks only with a package installed whose ESM build register watches', async () => {
  const fs = require('node:fs');
  const os = require('node:os');
  const { execFile } = require('node:child_process');
  const register = path.join(__dirname, '..', '..', '..', 'lib', 'register.mjs');
  const hooked = (dir) =>
    new Promise((resolve, reject) => {
      fs.writeFileSync(path.join(dir, 'app.mjs'), "console.log(globalThis[Symbol.for('customlabels.register.esm')] !== undefined);\n");
      execFile(process.execPath, ['--import', register, path.join(dir, 'app.mjs')], { env: { ...process.env, NODE_OPTIONS: '' }, encoding: 'utf8' }, (err, stdout, stderr) =>
        err ? reject(err) : resolve({ stdout: stdout.trim(), stderr }),
      );
    });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-esm-hooks-'));
  try {
    expect(await hooked(dir)).toEqual({ stdout: 'false', stderr: '' });
    const hono = path.join(dir, 'node_modules', 'hono');
    fs.mkdirSync(hono, { recursive: true });
    fs.writeFileSync(path.join(hono, 'package.json'), JSON.stringify({ name: 'hono', exports: { import: './index.mjs', require: './index.js' } }));
    expect(await hooked(dir)).toEqual({ stdout: String(registerHooks), stderr: '' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
