'use strict';

// What customlabels/register adds to a cold start: an app of about 1,000
// modules (50 packages of 20 files in node_modules, required by one entry,
// plus Express, which register instruments), started with and without
// `--require customlabels/register` (CommonJS) and, for an ESM entry
// importing the same packages, `--import customlabels/register` (also with
// a package whose ESM build register would watch installed, which makes
// it install module.registerHooks); alternating runs, medians of the wall
// time to exit, in ms.
//   node bench/register-startup.js [--runs 15]

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] || 15);

function makeApp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-startup-'));
  const requires = [];
  for (let p = 0; p < 50; p++) {
    const pkg = path.join(dir, 'node_modules', `pkg${p}`);
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: `pkg${p}`, main: 'index.js' }));
    const files = [];
    for (let f = 0; f < 19; f++) {
      fs.writeFileSync(path.join(pkg, `m${f}.js`), `'use strict';\nconst x = ${f};\nmodule.exports = function m${f}(a) { return a + x + ${p}; };\n`);
      files.push(`require('./m${f}.js')`);
    }
    fs.writeFileSync(path.join(pkg, 'index.js'), `'use strict';\nmodule.exports = [${files.join(', ')}];\n`);
    requires.push(`pkg${p}`);
  }
  // Express from the repository (register instruments it as it loads).
  const express = path.dirname(require.resolve('express/package.json', { paths: [root] }));
  fs.writeFileSync(
    path.join(dir, 'app.js'),
    `'use strict';\nconst express = require(${JSON.stringify(express)});\n${requires.map((r) => `require('${r}');`).join('\n')}\nconst app = express();\napp.get('/', (req, res) => res.end());\n`,
  );
  fs.writeFileSync(
    path.join(dir, 'app.mjs'),
    `import express from ${JSON.stringify(path.join(express, 'index.js'))};\n${requires.map((r, i) => `import p${i} from '${r}';`).join('\n')}\nconst app = express();\napp.get('/', (req, res) => res.end());\n`,
  );
  return dir;
}

function time(args, cwd) {
  const start = process.hrtime.bigint();
  execFileSync(process.execPath, args, { cwd, stdio: 'ignore', env: { ...process.env, NODE_OPTIONS: '' } });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const dir = makeApp();
// The same app with a package register watches whose ESM build an ESM app
// could import installed (not imported): register then installs its
// module.registerHooks (lib/register/hooks.js esmBuildInstalled()).
const dirEsmBuild = makeApp();
const stub = path.join(dirEsmBuild, 'node_modules', 'hono');
fs.mkdirSync(stub);
fs.writeFileSync(path.join(stub, 'package.json'), JSON.stringify({ name: 'hono', exports: { import: './index.mjs', require: './index.js' } }));
fs.writeFileSync(path.join(stub, 'index.mjs'), 'export const Hono = class {};\n');
fs.writeFileSync(path.join(stub, 'index.js'), 'exports.Hono = class {};\n');
const register = path.join(root, 'lib', 'register.js');
const registerMjs = path.join(root, 'lib', 'register.mjs');
const cases = {
  cjs: [['app.js'], dir],
  'cjs + register': [['--require', register, 'app.js'], dir],
  esm: [['app.mjs'], dir],
  'esm + register': [['--import', registerMjs, 'app.mjs'], dir],
  'esm, an ESM build installed': [['app.mjs'], dirEsmBuild],
  'esm + register, an ESM build installed': [['--import', registerMjs, 'app.mjs'], dirEsmBuild],
};
const modules = Number(execFileSync(process.execPath, ['-e', `require('./app.js'); console.log(Object.keys(require.cache).length)`], { cwd: dir, encoding: 'utf8' }));
for (const [args, cwd] of Object.values(cases)) time(args, cwd); // warm the file cache
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < runs; i++) {
  const names = Object.keys(cases);
  for (let j = 0; j < names.length; j++) {
    const name = names[(i + j) % names.length];
    samples[name].push(time(...cases[name]));
  }
}
fs.rmSync(dir, { recursive: true, force: true });
fs.rmSync(dirEsmBuild, { recursive: true, force: true });
const m = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
const delta = (a, b) => median(samples[a].map((x, i) => x - samples[b][i]));
console.log(
  JSON.stringify({
    node: process.version,
    modules,
    runs,
    ms: m,
    addedCjs: delta('cjs + register', 'cjs'),
    addedEsm: delta('esm + register', 'esm'),
    addedEsmWithEsmBuild: delta('esm + register, an ESM build installed', 'esm, an ESM build installed'),
  }),
);
