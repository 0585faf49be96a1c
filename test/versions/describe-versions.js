'use strict';

// The tests of one integration's versions (test/versions/<integration>.test.js):
// every entry of the matrix for it (test/versions/matrix.js) is installed
// into the cache (test/versions/cache.js) and its end-to-end test
// (test/versions/suites.js) run with those packages in place
// (test/versions/overlay.js), read from outside:
// - a supported version, by hand and with customlabels/register, hooks on
//   and off: every request answered as without customlabels, and at every
//   checkpoint exactly the labels the fixture expects;
// - a version outside the range, or a double whose private name moved, by
//   hand and with register: the app starts and serves with one
//   CUSTOMLABELS_UNSUPPORTED_FRAMEWORK warning naming the package, the
//   version found and the range (and, for a double, the name moved, as the
//   internal's check found it missing), and no checkpoint shows a label it
//   should not (each one it shows is the request's own; a route never
//   known shows as (unmatched), or not at all).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { nodeDir } = require('../../scripts/node-versions');
const { SUITES } = require('./suites');
const { installAll, versionIn } = require('./cache');
const { labelOf } = require('./matrix');
const { recordResult } = require('./results');
const TABLE = require('../../lib/integrations');
const { satisfies } = require('../../lib/integrations/kit/integration');

const overlay = path.join(__dirname, 'overlay.js');
const UNMATCHED = '(unmatched)';

// The entries this run tests: the matrix, or (npm run test:versions --
// --newest) the newest releases npm has today, resolved by run.js before
// Jest starts and handed over in the file CUSTOMLABELS_VERSIONS_NEWEST names.
function entriesOf(name) {
  const newest = process.env.CUSTOMLABELS_VERSIONS_NEWEST;
  const all = typeof newest === 'string' && newest !== '' ? JSON.parse(fs.readFileSync(newest, 'utf8')) : require('./matrix').MATRIX;
  return all.filter((e) => e.integration === name);
}

function modesOf(entry, suite) {
  const wirings = entry.wirings ?? suite.wirings ?? ['by hand', 'register'];
  const hooks = entry.expect === 'unsupported' ? ['on'] : ['on', 'off'];
  return wirings.flatMap((wiring) => hooks.map((h) => [wiring, h]));
}

// Releases that do not run on Node.js 24 (they read res._headers, which 24
// removed) run under 22, with AsyncContextFrame on (hooks off needs it).
// Deprecation warnings of old releases (their dependencies' use of punycode,
// res._headers) are silenced: they are not customlabels', whose warnings
// are not deprecations and still show.
const NODE_22_FLAGS = ['--experimental-async-context-frame'];

// The packages a run resolves from the set's folder and records as loaded:
// the set's, its overrides', and those its suite reports (Express's
// router).
const namesOf = (entry) => [...new Set([...Object.keys(entry.set.packages), ...Object.keys(entry.set.overrides ?? {}), ...(SUITES[entry.integration].report ?? [])])];

function envFor(entry, dir, wiring, hooks, loadedFile) {
  const flags = [...(entry.node === 22 ? NODE_22_FLAGS : []), '--no-deprecation'];
  const env = {
    CUSTOMLABELS_VERSIONS_DIR: dir,
    CUSTOMLABELS_VERSIONS_PACKAGES: JSON.stringify(namesOf(entry)),
    CUSTOMLABELS_VERSIONS_LOADED: loadedFile,
    NODE_OPTIONS: [...flags, '--require', overlay, ...(wiring === 'register' ? ['--require', 'customlabels/register'] : [])].join(' '),
  };
  if (hooks === 'off') env.CUSTOMLABELS_HOOKS = '0';
  if (wiring === 'register') Object.assign(env, { CUSTOMLABELS_FIXTURE_WIRING: 'register', CUSTOMLABELS_HEADERS: 'x-tenant=tenant' });
  return env;
}

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The warnings of a run's stderr: [{ code, message }].
function stderrWarnings(stderr) {
  return [...stderr.matchAll(/\(node:\d+\) \[(\w+)\] Warning: (.*)/g)].map((m) => ({ code: m[1], message: m[2] }));
}

// A run's warnings: those the fixture recorded (it then leaves stderr for
// what should not be there), else those of its stderr, which must hold
// nothing else.
function warningsOf(suite, result) {
  if (suite.warnings === undefined) {
    const lines = result.run.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('(Use `node --trace-warnings'));
    expect(lines.filter((l) => !/^\(node:\d+\) \[\w+\] Warning: /.test(l))).toEqual([]);
    return stderrWarnings(result.run.stderr);
  }
  expect(result.run.stderr).toBe('');
  return suite.warnings(result);
}

// Whether `seen` (labels a reader saw) shows, of the labels the integration
// publishes (`published`), nothing but what `expected` holds; a route the
// integration could not know may be UNMATCHED or absent.
function noWrongLabel(seen, expected, published) {
  if (seen === null || seen === undefined) return true;
  for (const [key, value] of Object.entries(seen)) {
    if (!published.includes(key)) continue;
    if (expected !== null && expected !== undefined && expected[key] === value) continue;
    if (key === 'route' && value === UNMATCHED) continue;
    return false;
  }
  return true;
}

// The package an unsupported entry is about: the one doubled, or the one
// whose version is outside the integration's range.
function subjectOf(entry) {
  if (entry.set.double !== undefined) return entry.set.double.package;
  const integration = TABLE.find((i) => i.name === entry.integration);
  return Object.keys(entry.set.packages).find((p) => integration.packages[p] !== undefined && !satisfies(entry.set.packages[p], integration.packages[p]));
}

// What the run loaded of the set's packages (test/versions/overlay.js's
// lines, one per process and thread): { package: { folder: version } }.
function loadedOf(file) {
  const out = {};
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n').filter(Boolean)) {
    for (const [pkg, folders] of Object.entries(JSON.parse(line).loaded)) Object.assign((out[pkg] ??= {}), folders);
  }
  return out;
}

// The versions named are the versions that ran: every package of the set
// the app loaded came from the set's folder, at the version the set (or
// its overrides) names at its top (a copy nested in another package may
// differ), and the entry's subject was loaded. Returns { package: version }
// of what ran at the top of the set's node_modules.
function expectLoadedAsNamed(entry, dir, loaded) {
  const modules = path.join(dir, 'node_modules');
  expect({ subject: entry.subject, loaded: loaded[entry.subject] !== undefined }).toEqual({ subject: entry.subject, loaded: true });
  const ran = {};
  for (const [pkg, folders] of Object.entries(loaded)) {
    for (const [folder, version] of Object.entries(folders)) {
      expect({ pkg, folder, inSet: folder.startsWith(modules + path.sep) }).toEqual({ pkg, folder, inSet: true });
      if (folder === path.join(modules, pkg)) {
        const named = entry.set.packages[pkg] ?? (entry.set.overrides ?? {})[pkg];
        if (named !== undefined) expect({ pkg, version }).toEqual({ pkg, version: named });
        ran[pkg] = version;
      }
    }
  }
  return ran;
}

// The servers a suite runs against (its `servers`), started once per test
// file: a real redis-server (bullmq), a real rabbitmq-server (amqplib).
const SERVERS = {
  redis: async () => {
    const server = await require('../js/integrations/redis-server').startRedis();
    return { port: server.port, stop: () => server.stop() };
  },
  broker: async () => {
    const server = await require('../js/integrations/rabbitmq-server').startRabbitmq();
    return { url: server.url, stop: () => server.stop() };
  },
};

function describeVersions(name) {
  const entries = entriesOf(name);
  const suite = SUITES[name];
  const integration = TABLE.find((i) => i.name === name);
  const context = {};
  let dirs;

  beforeAll(async () => {
    for (const server of suite.servers ?? []) context[server] = await SERVERS[server]();
  }, 120000);
  afterAll(async () => {
    for (const server of suite.servers ?? []) if (context[server] !== undefined) await context[server].stop();
  }, 60000);
  beforeAll(async () => {
    dirs = await installAll(entries.map((e) => e.set));
  }, 1200000);

  for (const entry of entries) {
    const on = entry.node === undefined ? '' : `, on Node.js ${entry.node}`;
    describe(`${name}: ${labelOf(entry)}${entry.expect === 'unsupported' ? ', not supported' : ''}${on} (${entry.why})`, () => {
      for (const [wiring, hooks] of modesOf(entry, suite)) {
        describe(`wired ${wiring}, hooks ${hooks}`, () => {
          let result;
          let ran = null;
          // Each test of the mode marks itself passed as its last step; the
          // mode's record says whether all did (test/versions/results.js).
          const passed = new Set();
          const tests = [];
          const check = (title, fn) => {
            tests.push(title);
            test(title, async () => {
              await fn();
              passed.add(title);
            });
          };
          const loadedFile = path.join(os.tmpdir(), `customlabels-loaded-${process.pid}-${Math.random().toString(36).slice(2)}.jsonl`);

          beforeAll(async () => {
            const dir = dirs.get(entry.set);
            if (entry.node !== undefined) process.env.CUSTOMLABELS_FIXTURE_NODE = path.join(nodeDir(entry.node), 'bin', 'node');
            try {
              result = await suite.run(entry, envFor(entry, dir, wiring, hooks, loadedFile), { ...context, wiring });
            } finally {
              delete process.env.CUSTOMLABELS_FIXTURE_NODE;
            }
          }, 400000);

          afterAll(() => {
            const loaded = loadedOf(loadedFile);
            fs.rmSync(loadedFile, { force: true });
            recordResult({
              entry,
              wiring,
              hooks,
              passed: tests.every((t) => passed.has(t)),
              outcome: suite.outcome ? suite.outcome(entry, { wiring, hooks }) : entry.expect === 'unsupported' ? 'one warning, unlabelled, no label wrong' : 'labelled exactly',
              ran: ran ?? Object.fromEntries(Object.entries(loaded).map(([p, f]) => [p, f[path.join(dirs.get(entry.set), 'node_modules', p)] ?? null])),
              attempts: result && result.attempts !== undefined ? result.attempts : 1,
            });
          });

          check('the versions the set names are the versions that ran, loaded from its folder', () => {
            ran = expectLoadedAsNamed(entry, dirs.get(entry.set), loadedOf(loadedFile));
          });
          if (entry.expect !== 'unsupported') {
            check('every request is answered as without customlabels, and the app exits cleanly', () => {
              expect(result.run.stderr).toBe('');
              expect(result.run.code).toBe(0);
              suite.served(result, entry, { wiring, unsupported: false });
            });
            check('at every checkpoint the reader sees exactly the labels of its work, from outside', () => {
              suite.checkpoints(result, entry, { wiring });
              // Hooks off means off: labels found by the walk, never the TLS pointer.
              for (const cp of result.run.checkpoints) expect({ name: cp.name, hooks: cp.hooks }).toEqual({ name: cp.name, hooks: hooks === 'on' });
            });
          } else {
            check('one CUSTOMLABELS_UNSUPPORTED_FRAMEWORK warning names the package, the version found and the range; the app serves and exits cleanly', () => {
              const pkg = subjectOf(entry);
              const version = versionIn(dirs.get(entry.set), pkg);
              // (Once per thread: a worker that met the package before its
              // parent warned says the same once more.)
              const warnings = [...new Map(warningsOf(suite, result).filter((w) => w.code === 'CUSTOMLABELS_UNSUPPORTED_FRAMEWORK').map((w) => [w.message, w])).values()];
              expect(warnings).toEqual([
                {
                  code: 'CUSTOMLABELS_UNSUPPORTED_FRAMEWORK',
                  message: expect.stringContaining(`customlabels/${name}: ${pkg} ${version} is not supported (supported: ${pkg} ${integration.packages[pkg]})`),
                },
              ]);
              // A double: the check of the name it moved found it missing.
              if (entry.set.double !== undefined) expect(warnings[0].message).toMatch(new RegExp(`: (.*, )?${escapeRegExp(entry.set.double.renames)}(, .*)? (is|are) missing\\.`));
              expect(result.run.code).toBe(0);
              suite.served(result, entry, { wiring, unsupported: true });
            });
            check('no checkpoint shows a label of the integration that is not its own', () => {
              expect(result.run.checkpoints.length).toBeGreaterThan(0);
              for (const cp of result.run.checkpoints) {
                const seen = cp.seen.row === null ? null : cp.seen.row.labels;
                const expected = suite.expectedLabels === undefined ? cp.expect : suite.expectedLabels(cp);
                expect({ name: cp.name, ok: noWrongLabel(seen, expected, suite.published), seen, expected }).toEqual({ name: cp.name, ok: true, seen, expected });
              }
            });
          }
        });
      }
    });
  }
}

module.exports = { describeVersions, modesOf, noWrongLabel };
