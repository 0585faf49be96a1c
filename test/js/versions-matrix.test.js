'use strict';

// The matrix test:versions runs (test/versions/matrix.js) covers every
// range the table of integrations declares, by construction, and this keeps
// it so: each release line's lowest and newest release the recorded
// releases have, and, for a range checked at run time, the releases just
// outside it on each side, are run, or named as not runnable with a
// reason. Every set installs from a lockfile kept in the repository that
// names exactly its packages. Read from the files alone: no install.

const { isDeepStrictEqual } = require('node:util');
const semver = require('semver');
const TABLE = require('../../lib/integrations');
const { MATRIX, EXEMPT, NOTES, HAND } = require('../versions/matrix');
const { RELEASES, releasesOf, coverage } = require('../versions/releases');
const { lockOf, lockedVersion, fileOf, manifestOf } = require('../versions/locks');

const runsAt = (pkg, version, expect) => MATRIX.some((e) => e.set.double === undefined && e.set.packages[pkg] === version && (expect === undefined || e.expect === expect));
const exempt = (pkg, version) => EXEMPT[`${pkg}@${version}`] !== undefined;

const RANGES = TABLE.flatMap((i) => [
  ...Object.entries(i.packages).map(([pkg, range]) => ({ integration: i.name, pkg, range, checked: true })),
  ...Object.entries(i.testedWith).map(([pkg, range]) => ({ integration: i.name, pkg, range, checked: false })),
]);

test('releases.json records the releases of every package the table declares a range for', () => {
  expect(RELEASES.recorded).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  expect(Object.keys(RELEASES.packages).sort()).toEqual([...new Set(RANGES.map((r) => r.pkg))].sort());
});

test.each(RANGES.map((r) => [r.integration, r.pkg, r.range, r]))('%s: %s %s is covered: the lowest and newest release of each line it admits, and the releases just outside it', (integration, pkg, range, { checked }) => {
  const { lines, below, above } = coverage(releasesOf(pkg), range);
  expect(lines.length).toBeGreaterThan(0);
  const missing = [];
  for (const { lowest, newest } of lines) {
    for (const v of [lowest, newest]) if (!runsAt(pkg, v, 'labels') && !exempt(pkg, v)) missing.push(`${pkg}@${v}`);
  }
  if (checked) {
    for (const v of [below, above]) if (v !== null && !runsAt(pkg, v, 'unsupported') && !exempt(pkg, v)) missing.push(`${pkg}@${v} (outside)`);
  }
  expect(missing).toEqual([]);
});

test('each entry runs what it says: a supported one inside the ranges, an unsupported one outside (or a double)', () => {
  const wrong = [];
  for (const e of MATRIX) {
    const integration = TABLE.find((i) => i.name === e.integration);
    const range = integration.packages[e.subject] ?? integration.testedWith[e.subject];
    const inside = semver.satisfies(e.set.packages[e.subject], range);
    if (e.expect === 'labels' && !inside) wrong.push(`${e.key}: expected labelled, outside ${range}`);
    if (e.expect === 'unsupported' && e.set.double === undefined && inside) wrong.push(`${e.key}: expected unsupported, inside ${range}`);
    if (e.expect === 'unsupported' && integration.packages[e.subject] === undefined) wrong.push(`${e.key}: unsupported, but nothing checks ${e.subject}`);
  }
  expect(wrong).toEqual([]);
});

test('entries have one key each, and every note and exemption names a release the matrix asks for', () => {
  const keys = MATRIX.map((e) => e.key);
  expect(new Set(keys).size).toBe(keys.length);
  const asked = new Set();
  for (const { pkg, range } of RANGES) {
    const { lines, below, above } = coverage(releasesOf(pkg), range);
    for (const { lowest, newest } of lines) asked.add(`${pkg}@${lowest}`).add(`${pkg}@${newest}`);
    for (const v of [below, above]) if (v !== null) asked.add(`${pkg}@${v}`);
  }
  expect(Object.keys(EXEMPT).filter((k) => !asked.has(k))).toEqual([]);
  // A note is for a generated entry: a release the coverage asks for that
  // no hand-picked entry runs.
  const handRuns = (k) => HAND.some((e) => e.set.double === undefined && `${e.subject}@${e.set.packages[e.subject]}` === k);
  expect(Object.keys(NOTES).filter((k) => !asked.has(k) || handRuns(k))).toEqual([]);
});

test('every set installs from a lockfile in the repository that locks exactly its packages', () => {
  const problems = [];
  for (const e of MATRIX) {
    const set = { ...e.set, double: undefined };
    const lock = lockOf(set);
    if (lock === null) {
      problems.push(`${e.key}: no ${fileOf(set)} (npm run versions:refresh)`);
      continue;
    }
    const root = lock.packages[''];
    const manifest = manifestOf(set);
    if (!isDeepStrictEqual(root.dependencies, manifest.dependencies)) problems.push(`${e.key}: the lockfile is of other packages`);
    for (const [pkg, version] of Object.entries({ ...set.packages, ...(set.overrides ?? {}) })) {
      if (lockedVersion(lock, pkg) !== version) problems.push(`${e.key}: the lockfile installs ${pkg} ${lockedVersion(lock, pkg)}, not ${version}`);
    }
  }
  expect(problems).toEqual([]);
});

// The newest lane (test/versions/newest.js): a newest release inside its
// range is run, as its builder runs that package, installed fresh; one
// outside it is named with its release date, not run, and its row of
// docs/versions.md says "not supported yet". Against a registry that has
// just published express 6.0.0 and a bullmq 6 patch.
test('the newest lane runs a newest release inside its range, and names one outside it without running it', async () => {
  const { newestEntries } = require('../versions/newest');
  const { renderNewest } = require('../versions/results');
  const table = TABLE.filter((i) => i.name === 'express' || i.name === 'bullmq');
  const registry = { express: ['6.0.0', '2026-12-01'], bullmq: ['6.7.1', '2026-12-02'] };
  const said = [];
  const { entries, rows } = await newestEntries(async (name) => ({ name, latest: registry[name][0], dates: { [registry[name][0]]: registry[name][1] } }), (l) => said.push(l), table);
  expect(said).toEqual(['test:versions --newest: express 6.0.0 (released 2026-12-01) is outside its range >=4.6.0 <6: not supported yet']);
  expect(entries.map((e) => [e.key, e.set.fresh, e.set.packages])).toEqual([['bullmq: newest bullmq 6.7.1 (ioredis 6.0.0)', true, { bullmq: '6.7.1', ioredis: '6.0.0' }]]);
  const passed = new Map([[entries[0].key, [{ wiring: 'by hand', hooks: 'on', outcome: 'labelled exactly', attempts: 1 }, { wiring: 'by hand', hooks: 'off', outcome: 'labelled exactly', attempts: 1 }]]]);
  expect(renderNewest(rows, passed).split('\n').slice(2)).toEqual([
    '| `express` | 6.0.0 (2026-12-01) | >=4.6.0 <6 | newest 6.0.0 (2026-12-01): not supported yet |',
    '| `bullmq` | 6.7.1 (2026-12-02) | 5.x \\|\\| 6.x | by hand, hooks on and off: labelled exactly |',
  ]);
});
