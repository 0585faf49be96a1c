'use strict';

// An install is never refused. The packed package is installed with a plain
// `npm install` (no --legacy-peer-deps, no --force) into a fresh app next to
// each package the integrations support (lib/integrations/supported.js), at
// the releases npm's registry has today: the newest, the lowest the range
// supports, and the newest below the range (an app on an old framework must
// still install, and run unlabelled); and next to the OpenTelemetry SDK as
// its own documentation installs it. Each install must succeed, with no
// resolution warning that names customlabels, and in each app
// `customlabels versions` must say whether the installed release runs
// labelled, as its range has it.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const semver = require('semver');
const { userEnv, run, npm, pack, newApp } = require('./pack');
const { supportedRanges } = require('../../lib/integrations/supported');
const { packument } = require('../versions/registry');
const { coverage } = require('../versions/releases');

jest.setTimeout(1800000);

const ROWS = supportedRanges();
// The OpenTelemetry SDK, as its getting-started page installs it.
const OTEL_SDK = ['@opentelemetry/sdk-node@latest', '@opentelemetry/api@latest'];
const CONCURRENCY = 3;

let work;
let tarball;
const installs = new Map(); // case name -> { specs, result, versions }

// The cases of one package: [{ name, spec, version, why }].
async function casesOf({ package: pkg, range, checked }) {
  const p = await packument(pkg);
  const { lines, below } = coverage(p.versions, range);
  const lowest = lines.length > 0 ? lines[0].lowest : null;
  const out = [{ name: `${pkg}@${p.latest}`, version: p.latest, why: 'its newest release' }];
  if (lowest !== null && lowest !== p.latest) out.push({ name: `${pkg}@${lowest}`, version: lowest, why: 'the lowest release its range supports' });
  if (below !== null) out.push({ name: `${pkg}@${below}`, version: below, why: 'the newest release below its range' });
  return out.map((c) => ({ ...c, package: pkg, range, checked, specs: [`${pkg}@${c.version}`] }));
}

// Installs the tarball and `specs` into a new app; then, in it, runs
// `customlabels versions` (its row of each package is checked) and
// requires customlabels and customlabels/register.
async function install(c) {
  const app = newApp(work, c.name);
  const r = await npm(['install', '--no-audit', '--no-fund', tarball, ...c.specs], { cwd: app, env: userEnv(), timeout: 600000 });
  const out = { install: r };
  if (r.code !== 0) return out;
  out.versions = await run(process.execPath, [path.join(app, 'node_modules', 'customlabels', 'bin', 'customlabels.js'), 'versions'], { cwd: app });
  out.load = await run(process.execPath, ['-e', "const cl = require('customlabels'); require('customlabels/register'); console.log(JSON.stringify({ supported: cl.supported }))"], { cwd: app });
  return out;
}

async function pool(items, n, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const item = items[next++];
        installs.set(item.name, { ...item, result: await fn(item) });
      }
    }),
  );
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-beside-'));
  ({ tarball } = await pack());
  const cases = (await Promise.all(ROWS.map(casesOf))).flat();
  cases.push({ name: 'the OpenTelemetry SDK', specs: OTEL_SDK, why: 'as its documentation installs it' });
  const started = Date.now();
  await pool(cases, CONCURRENCY, install);
  console.log(`${cases.length} installs beside the packed package in ${Math.round((Date.now() - started) / 1000)} s:\n${cases.map((c) => `  ${c.name} (${c.why})`).join('\n')}`);
});

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// What an install printed about resolving customlabels: nothing, or the
// lines that name it (an ERESOLVE, a peer override).
const resolutionNotes = (r) => `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => /ERESOLVE|peer/i.test(l) && /customlabels/.test(l));

function expectInstalled(c) {
  const { install: r, load } = c.result;
  expect({ install: c.name, code: r.code, eresolve: /ERESOLVE/.test(r.stderr) ? r.stderr.split('\n').slice(0, 12).join('\n') : null }).toEqual({ install: c.name, code: 0, eresolve: null });
  expect(resolutionNotes(r)).toEqual([]);
  expect({ install: c.name, code: load.code, stderr: load.stderr, out: load.stdout.trim() }).toEqual({ install: c.name, code: 0, stderr: '', out: '{"supported":true}' });
}

test.each(ROWS.map((r) => [r.package, r.range]))('%s (supported: %s): the newest, the lowest supported and the newest release below the range each install beside customlabels', (pkg, range) => {
  const mine = [...installs.values()].filter((c) => c.package === pkg);
  expect(mine.length).toBeGreaterThanOrEqual(1);
  for (const c of mine) {
    expectInstalled(c);
    // What `customlabels versions` says of the release installed.
    const row = c.result.versions.stdout.split('\n').find((l) => l.startsWith(`${pkg} `));
    const supported = semver.satisfies(c.version, range);
    const outside = c.checked ? 'not supported, runs without its integration' : 'not tested with it';
    expect({ install: c.name, row: row && row.split(/ {2,}/).slice(-1)[0] }).toEqual({ install: c.name, row: supported ? c.version : `${c.version}: ${outside}` });
  }
});

test('the OpenTelemetry SDK installs beside customlabels as its documentation installs it', () => {
  const c = installs.get('the OpenTelemetry SDK');
  expectInstalled(c);
});
