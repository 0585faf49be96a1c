'use strict';

// Register must not change what an app can observe of its own framework.
// Each framework's app (test/js/fixtures/observe-app.js) is built, serves a
// GET, a POST with a body and a 404, and prints what it can see of itself:
// middleware and hook lists, route and plugin printouts, router and Layer
// stacks, the own keys (strings and symbols) of its app, requests and
// responses, the names and lengths of the functions of the prototypes it
// uses. (Symbols named customlabels.* are customlabels' state on a request,
// a context or an app, and are left out; anything else register added
// shows.) Run without and with
// customlabels/register, the two must be the same, but for the differences
// the docs name, each asserted here as it is:
// - Fastify 5 keeps its handler channel's message on each reply under a
//   symbol of its own (fastify.diagnosticsStore) whenever the channel has a
//   subscriber: register's, as any APM's (docs/integrations/fastify.md);
// - Fastify 4 publishes no channel around its handlers: register's
//   onRequest hook (labelRequest) shows in printRoutes({ includeHooks }),
//   and adding it is one step in printPlugins() (docs/integrations/
//   fastify.md);
// - Koa's routers publish no hook when a route matches: each route layer's
//   stack starts with the entering middleware (enterRoute)
//   (docs/integrations/koa.md).

const { execFile } = require('node:child_process');
const path = require('node:path');
const { root, testIf } = require('../helpers');
const { asPackage } = require('./harness');

const fixture = path.join(__dirname, '..', 'fixtures', 'observe-app.js');
const major = Number(process.versions.node.split('.')[0]);

function observe(args, registered) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, NODE_OPTIONS: registered ? '--require customlabels/register' : '', CUSTOMLABELS_HEADERS: 'x-tenant=tenant', CUSTOMLABELS_LABELS: 'service=observe' };
    execFile(process.execPath, [fixture, ...args], { cwd: root, env, encoding: 'utf8', timeout: 60000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve({ snapshot: JSON.parse(stdout), stderr });
    });
  });
}

const pkg = (name) => path.join(root, 'node_modules', name);

const CASES = [
  ['express', 'Express 5', () => ['express', pkg('express')]],
  ['express', 'Express 4', () => ['express', asPackage('express4', 'express')]],
  ['fastify', 'Fastify 5', () => ['fastify', pkg('fastify')], major >= 20],
  ['fastify', 'Fastify 4', () => ['fastify', asPackage('fastify4', 'fastify')]],
  ['koa', 'Koa 3 with @koa/router', () => ['koa', pkg('koa'), pkg('@koa/router')], major >= 20],
  ['hapi', 'hapi 21', () => ['hapi', pkg('@hapi/hapi')]],
  ['hono', 'Hono 4 on @hono/node-server', () => ['hono', pkg('hono'), pkg('@hono/node-server')], major >= 20],
];

// What register is documented to change, taken out of its snapshot.
const withoutKey = (seen, key) => Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, { ...v, res: v.res.filter((x) => x !== key) }]));
const DOCUMENTED = {
  'Fastify 5': (s) => {
    // Fastify 5 keeps its channel's message on the reply whenever its
    // handler channel has a subscriber, any APM's as register's.
    for (const seen of Object.values(s.seen)) expect(seen.res).toContain('Symbol(fastify.diagnosticsStore)');
    return { ...s, seen: withoutKey(s.seen, 'Symbol(fastify.diagnosticsStore)') };
  },
  'Fastify 4': (s) => {
    expect(s.routes).toMatch(/\(onRequest\) \["labelRequest\(\)","mine\(\)"\]/);
    // (Fastify 4's addHook() is one step of the instance's plugin queue.)
    expect(s.plugins).toMatch(/^root\n├── bound _after\n├── bound _after\n/);
    return { ...s, routes: s.routes.replace(/"labelRequest\(\)",/g, ''), plugins: s.plugins.replace('├── bound _after\n', '') };
  },
  'Koa 3 with @koa/router': (s) => {
    for (const layer of s.layers) expect(layer.stack[0]).toBe('enterRoute');
    return { ...s, layers: s.layers.map((l) => ({ ...l, stack: l.stack.slice(1) })) };
  },
};

// (The current majors of Fastify, Koa's router and Hono's server need
// Node.js 20: on 18 they skip, each saying so; .ci/run allows those.)
for (const [, title, args, runs = true] of CASES) {
  testIf(runs, `${title} needs Node.js >= 20`)(`${title}: what the app sees of its framework is the same with register as without it`, () => compare(title, args), 120000);
}

async function compare(title, args) {
  const without = await observe(args(), false);
  const withRegister = await observe(args(), true);
  expect({ without: without.stderr, with: withRegister.stderr }).toEqual({ without: '', with: '' });
  // The fixture saw its requests both ways.
  expect(Object.keys(without.snapshot.seen).sort()).toEqual(expect.arrayContaining(['get', 'post']));
  const documented = DOCUMENTED[title] ?? ((s) => s);
  expect(documented(withRegister.snapshot)).toEqual(without.snapshot);
}
