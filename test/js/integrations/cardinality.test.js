'use strict';

// Labels whose values a client chooses (header labels, GraphQL operation
// names, mapped span attributes, Socket.IO event names) keep at most
// CUSTOMLABELS_MAX_VALUES distinct values per process (default 2,000), then
// '(other)', with one warning naming the label (lib/integrations/kit/
// cardinality.js); a header label may also take an allow-pattern
// (CUSTOMLABELS_HEADERS=x-tenant=tenant:^[a-z0-9-]{1,32}$). Each case runs in
// a process of its own: the count is the process's.

const { runNode } = require('../helpers');

const json = (r) => {
  expect(r.stderr.replace(/\(Use `node --trace-warnings[^\n]*\n?/g, '')).not.toMatch(/Error/);
  return JSON.parse(r.stdout);
};

test('past the cap a value is (other), values kept before stay, each label has its own count, one warning names the label', async () => {
  const r = await runNode(
    `const { capValue } = require('./lib/integrations/kit/cardinality');
    const warnings = [];
    process.on('warning', (w) => warnings.push([w.code, w.message]));
    const tenant = ['a', 'b', 'a', 'c', 'd', 'e', 'b', 'c'].map((v) => capValue('tenant', v));
    const user = ['x', 'y', 'z', 'w'].map((v) => capValue('user', v));
    setImmediate(() => console.log(JSON.stringify({ tenant, user, warnings })));`,
    { env: { CUSTOMLABELS_MAX_VALUES: '3' } },
  );
  expect(json(r)).toEqual({
    tenant: ['a', 'b', 'a', 'c', '(other)', '(other)', 'b', 'c'],
    user: ['x', 'y', 'z', '(other)'],
    warnings: [
      ['CUSTOMLABELS_MAX_VALUES', 'customlabels: label "tenant" took 3 distinct values from outside the code (CUSTOMLABELS_MAX_VALUES); its other values are "(other)" from now on'],
      ['CUSTOMLABELS_MAX_VALUES', 'customlabels: label "user" took 3 distinct values from outside the code (CUSTOMLABELS_MAX_VALUES); its other values are "(other)" from now on'],
    ],
  });
});

test('the default cap is 2,000, and a value CUSTOMLABELS_MAX_VALUES cannot be is the default with the reason', async () => {
  const r = await runNode(
    `const { capValue, readMaxValues } = require('./lib/integrations/kit/cardinality');
    const out = [];
    for (let i = 0; i < 2005; i++) out.push(capValue('k', 'v' + i));
    console.log(JSON.stringify({ kept: out.filter((v) => v !== '(other)').length, other: out.filter((v) => v === '(other)').length,
      read: ['0', '-1', '1.5', 'many', ' 7 ', ''].map((t) => readMaxValues(t)) }));`,
  );
  const out = json(r);
  expect(out.kept).toBe(2000);
  expect(out.other).toBe(5);
  expect(out.read.map((x) => x.max)).toEqual([2000, 2000, 2000, 2000, 7, 2000]);
  expect(out.read.slice(0, 4).map((x) => x.problem)).toEqual(['0', '-1', '1.5', 'many'].map((t) => `CUSTOMLABELS_MAX_VALUES: "${t}" is not a whole number of at least 1; the default, 2000, applies`));
  expect(out.read.slice(4).map((x) => x.problem)).toEqual([null, null]);
});

test('the count is the process\'s: a worker started after the main thread took values has what is left', async () => {
  const r = await runNode(
    `const { Worker } = require('node:worker_threads');
    const { capValue } = require('./lib/integrations/kit/cardinality');
    const main = ['a', 'b'].map((v) => capValue('k', v));
    const w = new Worker("const { parentPort } = require('node:worker_threads'); const { capValue } = require(process.cwd() + '/lib/integrations/kit/cardinality'); parentPort.postMessage(['a', 'c', 'd', 'c'].map((v) => capValue('k', v)));", { eval: true });
    w.on('message', (worker) => { console.log(JSON.stringify({ main, worker, after: capValue('k', 'e') })); w.terminate(); });`,
    { env: { CUSTOMLABELS_MAX_VALUES: '4' } },
  );
  // 'a' again in the worker counts once more there (the process shows at
  // most the cap: a, b, c).
  expect(json(r)).toEqual({ main: ['a', 'b'], worker: ['a', 'c', '(other)', 'c'], after: '(other)' });
});

test('under register: header labels are capped and checked against their allow-pattern; the app sees its requests unchanged', async () => {
  const r = await runNode(
    `const http = require('node:http');
    const { currentLabels } = require('.');
    const server = http.createServer((req, res) => res.end(JSON.stringify({ labels: currentLabels(), tenant: req.headers['x-tenant'], user: req.headers['x-user'] })));
    server.listen(0, '127.0.0.1', async () => {
      const get = (headers) => fetch('http://127.0.0.1:' + server.address().port + '/', { headers }).then((res) => res.json());
      const out = [];
      for (const [tenant, user] of [['acme', 'u0'], ['ACME', 'u1'], ['a'.repeat(12), 'u2'], ['b-2', 'u3'], ['acme', 'u4'], ['acme', 'u0']]) out.push(await get({ 'x-tenant': tenant, 'x-user': user }));
      server.close();
      console.log(JSON.stringify(out));
    });`,
    {
      args: ['--require', './lib/register.js'],
      env: { CUSTOMLABELS_HEADERS: 'x-tenant=tenant:[a-z0-9-]{1,8},x-user=user', CUSTOMLABELS_MAX_VALUES: '3' },
    },
  );
  const out = json(r);
  expect(out.map((o) => [o.labels.tenant, o.labels.user])).toEqual([
    ['acme', 'u0'],
    ['(other)', 'u1'],
    ['(other)', 'u2'],
    ['b-2', '(other)'],
    ['acme', '(other)'],
    ['acme', 'u0'],
  ]);
  // What the app reads of its requests is what the client sent.
  expect(out.map((o) => o.tenant)).toEqual(['acme', 'ACME', 'a'.repeat(12), 'b-2', 'acme', 'acme']);
  expect(r.stderr.match(/\[CUSTOMLABELS_MAX_VALUES\] Warning/g)).toHaveLength(1);
  expect(r.stderr).toMatch(/label "user" took 3 distinct values/);
});

test('register: a bad allow-pattern or CUSTOMLABELS_MAX_VALUES is part of its one startup warning; the rest applies', async () => {
  const r = await runNode(`console.log(JSON.stringify(require('./lib/register/config').readConfig(process.env).problems))`, {
    env: { CUSTOMLABELS_HEADERS: 'x-tenant=tenant:[a-z,x-user=user', CUSTOMLABELS_MAX_VALUES: 'lots' },
  });
  const problems = json(r);
  expect(problems).toHaveLength(2);
  expect(problems[0]).toMatch(/^CUSTOMLABELS_HEADERS: the pattern of label "tenant" is not a regular expression/);
  expect(problems[1]).toBe('CUSTOMLABELS_MAX_VALUES: "lots" is not a whole number of at least 1; the default, 2000, applies');
});

test('GraphQL operation names and mapped span attributes are capped; a route template is not', async () => {
  const r = await runNode(
    `const { operationOf } = require('./lib/integrations/graphql');
    const { labelsOfAttributes } = require('./lib/integrations/otel/attributes');
    const ops = ['A', 'B', 'A', 'C'].map((n) => operationOf('query ' + n + ' { a }').name);
    const mapping = [['http.route', 'route'], ['http.target', 'target']];
    const attrs = ['/a', '/b', '/c'].map((t, i) => labelsOfAttributes({ 'http.route': '/r/' + i, 'http.target': t }, mapping));
    console.log(JSON.stringify({ ops, attrs }));`,
    { env: { CUSTOMLABELS_MAX_VALUES: '2' } },
  );
  expect(json(r)).toEqual({
    ops: ['A', 'B', 'A', '(other)'],
    attrs: [
      { route: '/r/0', target: '/a' },
      { route: '/r/1', target: '/b' },
      { route: '/r/2', target: '(other)' },
    ],
  });
});
