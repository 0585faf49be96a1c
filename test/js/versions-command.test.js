'use strict';

// `customlabels versions [--json]` (lib/integrations/supported.js): the npm
// packages the integrations support and their ranges, read from the table of
// integrations alone: a tool can read them where the addon cannot load, and
// an app sees which of its packages run labelled.

const { execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { root } = require('./helpers');
const TABLE = require('../../lib/integrations');

const bin = path.join(root, 'bin', 'customlabels.js');

// A preload that says on stderr when a native addon is loaded (every test
// expects an empty stderr).
let work;
let noAddon;
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-versions-'));
  noAddon = path.join(work, 'no-addon.js');
  fs.writeFileSync(noAddon, "const dlopen = process.dlopen;\nprocess.dlopen = function (m, file) { process.stderr.write(`an addon was loaded: ${file}\\n`); return dlopen.apply(this, arguments); };\n");
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function run(args, cwd = root) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--require', noAddon, bin, ...args], { cwd, encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ code: err ? err.code : 0, stdout, stderr }),
    );
  });
}

// Every package of the table with its range, as the descriptors declare it
// (checked, or tested with).
function declared() {
  const out = {};
  for (const integration of TABLE) Object.assign(out, integration.packages, integration.testedWith);
  return out;
}

test('versions --json prints one object: every package of the table and its range, sorted by name, with no addon loaded', async () => {
  const r = await run(['versions', '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const lines = r.stdout.split('\n');
  expect(lines.length).toBe(2); // one line and its newline
  const printed = JSON.parse(lines[0]);
  expect(printed).toEqual(declared());
  expect(Object.keys(printed)).toEqual(Object.keys(printed).sort());
  expect(printed.express).toBe(TABLE.find((i) => i.name === 'express').packages.express);
});

test('versions prints a table: each package, its range, its integration, and the version installed where it runs', async () => {
  // An app with one package in range, one below it, and the rest absent.
  const app = path.join(work, 'app');
  const write = (pkg, version) => {
    fs.mkdirSync(path.join(app, 'node_modules', pkg), { recursive: true });
    fs.writeFileSync(path.join(app, 'node_modules', pkg, 'package.json'), JSON.stringify({ name: pkg, version }));
  };
  write('express', '4.22.3');
  write('@hapi/hapi', '20.3.0');
  write('piscina', '3.2.0');
  fs.mkdirSync(path.join(app, 'src'), { recursive: true });
  const r = await run(['versions'], path.join(app, 'src')); // found from a folder below, as Node.js finds packages
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const rows = r.stdout.trimEnd().split('\n');
  expect(rows[0]).toMatch(/^package +supported +integration +installed here/);
  const row = (pkg) => rows.find((l) => l.startsWith(`${pkg} `)).split(/ {2,}/);
  expect(row('express')).toEqual(['express', '>=4.6.0 <6', 'express', '4.22.3']);
  expect(row('@hapi/hapi')).toEqual(['@hapi/hapi', declared()['@hapi/hapi'], 'hapi', '20.3.0: not supported, runs without its integration']);
  expect(row('koa')).toEqual(['koa', declared().koa, 'koa', '-']);
  // A range nothing checks (the worker pool customlabels/worker is tested
  // with): outside it is untested, not unlabelled.
  expect(row('piscina')).toEqual(['piscina', declared().piscina, 'worker', '3.2.0: not tested with it']);
  expect(rows.length).toBe(1 + Object.keys(declared()).length);
});

test('versions with an unknown argument says what it takes and exits 2', async () => {
  const r = await run(['versions', '--yaml']);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe('customlabels versions: unknown argument "--yaml"\nusage: customlabels versions [--json]\n');
});

test('a package two integrations declare must have one range', () => {
  const { supportedRanges } = require('../../lib/integrations/supported');
  const a = { name: 'a', packages: { express: '4.x' } };
  const b = { name: 'b', packages: { express: '5.x' } };
  expect(() => supportedRanges([a, b])).toThrow('express: two ranges in the table of integrations (a: 4.x, b: 5.x)');
  expect(supportedRanges([a, { name: 'c', packages: { express: '4.x' }, testedWith: { koa: '2.x' } }])).toEqual([
    { package: 'express', range: '4.x', integration: 'c', checked: true },
    { package: 'koa', range: '2.x', integration: 'c', checked: false },
  ]);
});
