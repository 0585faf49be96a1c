'use strict';

// The versions test/versions runs, per integration. Three parts:
//
// - Coverage, made from the table of integrations (its ranges) and the
//   releases recorded in test/versions/releases.json, so it covers every
//   declared range by construction: per release line a range admits (a
//   major; for 0.x, a minor) its lowest and its newest release, and for a
//   range register checks at run time (`packages`) the newest release below
//   it and the lowest above it, where npm has one (those must run with one
//   warning and no label wrong). Ranges the tests run but nothing checks
//   (`testedWith`) get no outside releases: there is no behaviour to show.
// - Doubles, made from the table too: one per private name an integration
//   declares (its `internals`), a copy of a release with that name moved
//   as the internal's double says (by default the newest release in the
//   range), which must run with one warning naming it and no label wrong:
//   the same check() that guards the patch finds it missing. (An internal
//   whose double is { none: why } has none: a unit test of its guard
//   stands in.)
// - Chosen by hand (HAND): every release where a private name a patch
//   relies on (or the behaviour the integration works around) changed.
//   Each says why it is here; the evidence (file and line per release) was
//   read from the packages.
//
// How a release of a package runs is its builder (its suite's, in
// test/versions/suites/<name>.js, with the releases chosen by hand, the
// notes and the exemptions): the packages beside it, the variant of the
// integration's end-to-end suite, the Node.js it needs (22: releases that
// read res._headers, which 24 removed; the others under 24), the wirings
// (by hand, register). Every set is installed from its lockfile
// (test/versions/locks/, written by `npm run versions:refresh`).
//
// An entry: { key, integration, subject (the package it is about), set: {
// packages: { name: version }, overrides?, double?, legacyPeerDeps? }, why,
// expect: 'labels' (the default) | 'unsupported', variant?, node?,
// wirings?, generated? }. `labels` entries run by hand and with register,
// hooks on and off; `unsupported` ones by hand and with register, hooks on.
// A release the coverage asks for that cannot run at all is EXEMPT, with
// the reason, which docs/versions.md shows.

const semver = require('semver');
const TABLE = require('../../lib/integrations');
const { releasesOf, coverage } = require('./releases');
const { SUITES } = require('./suites');

// --- how a release of each package runs: each suite's builders -------------------------
// builder(version) -> { set: { packages, overrides?, legacyPeerDeps? },
// variant?, node?, wirings? }
const BUILDERS = Object.fromEntries(Object.entries(SUITES).map(([name, suite]) => [name, suite.builders]));

// An entry for `version` of `pkg` in `integration`, run as its builder has
// it, with `extra` over that: `packages` and `overrides` merge into the
// set, a whole `set` (an SDK line of its own) replaces it.
function entry(integration, pkg, version, why, extra = {}) {
  const { overrides, double, packages, set: own, ...rest } = extra;
  const built = { ...BUILDERS[integration][pkg](version), ...(own ? { set: own } : {}) };
  const set = {
    ...built.set,
    packages: { ...built.set.packages, ...(packages ?? {}) },
    ...(overrides || built.set.overrides ? { overrides: { ...(built.set.overrides ?? {}), ...(overrides ?? {}) } } : {}),
    ...(double ? { double } : {}),
  };
  return { integration, subject: pkg, ...built, ...rest, set, why };
}
const unsupported = { expect: 'unsupported' };

// --- chosen by hand, what releases changed, what cannot run: each suite's ------------

const HAND = Object.entries(SUITES).flatMap(([name, suite]) => (suite.hand ? suite.hand((pkg, version, why, extra) => entry(name, pkg, version, why, extra), { unsupported }) : []));
// What a generated entry's release changed, where it did: "<package>@<version>"
// -> the note its why gets.
const NOTES = Object.assign({}, ...Object.values(SUITES).map((suite) => suite.notes ?? {}));
// Releases the coverage asks for that cannot run: "<package>@<version>" -> why.
const EXEMPT = Object.assign({}, ...Object.values(SUITES).map((suite) => suite.exempt ?? {}));

// --- coverage, generated ------------------------------------------------------------

// Whether `entries` run `pkg` at `version` (a double does not count).
const runs = (entries, pkg, version) => entries.some((e) => e.set.double === undefined && e.set.packages[pkg] === version);

// The entries covering every range of `integration` that `have` lacks.
function coverageOf(integration, have) {
  const out = [];
  const add = (pkg, version, why, expect) => {
    if (version === null || runs(have, pkg, version) || runs(out, pkg, version) || EXEMPT[`${pkg}@${version}`] !== undefined) return;
    const note = NOTES[`${pkg}@${version}`];
    out.push({ ...entry(integration.name, pkg, version, note === undefined ? why : `${why}: ${note}`, expect === 'unsupported' ? unsupported : {}), generated: true });
  };
  const ranges = [...Object.entries(integration.packages).map(([p, r]) => [p, r, true]), ...Object.entries(integration.testedWith).map(([p, r]) => [p, r, false])];
  for (const [pkg, range, checked] of ranges) {
    const { lines, below, above } = coverage(releasesOf(pkg), range);
    for (const { line, lowest, newest } of lines) {
      add(pkg, lowest, lowest === newest ? `the one release of ${line} in the range` : `oldest ${line}`);
      add(pkg, newest, `newest ${line}`);
    }
    if (checked) {
      add(pkg, below, 'just outside, below the range', 'unsupported');
      add(pkg, above, 'just outside, above the range', 'unsupported');
    }
  }
  return out;
}

// --- doubles, generated -----------------------------------------------------------

// One entry per internal of `integration`: the release its double names
// (or the newest in its package's range), with the name moved; register
// alone for a name only register relies on.
function doublesOf(integration) {
  return integration.internals.filter((internal) => internal.double.none === undefined).map((internal) => {
    const { version = semver.maxSatisfying(releasesOf(internal.package), integration.packages[internal.package]), edits, move } = internal.double;
    return {
      ...entry(integration.name, internal.package, version, `double: ${internal.name} moved`, {
        ...unsupported,
        ...(internal.register ? { wirings: ['register'] } : {}),
        double: { package: internal.package, renames: internal.name, edits, ...(move ? { move } : {}) },
      }),
      generated: true,
    };
  });
}

const keyOf = (e) => `${e.integration}: ${labelOf(e)}`;

// How an entry is named in test titles and the docs: its subject and
// version, then the other packages of its set ('express 5.0.0 (router
// 2.0.0)').
function labelOf(e) {
  const { packages, overrides = {}, double } = e.set;
  const rest = Object.entries(packages).filter(([p]) => p !== e.subject);
  const extra = [...rest, ...Object.entries(overrides)].map(([p, v]) => `${p} ${v}`);
  return `${e.subject} ${packages[e.subject]}${extra.length ? ` (${extra.join(', ')})` : ''}${double ? ` with ${double.renames} moved` : ''}`;
}

function build() {
  const out = [];
  for (const integration of TABLE) {
    const hand = HAND.filter((e) => e.integration === integration.name);
    const entries = [...coverageOf(integration, hand), ...hand, ...doublesOf(integration)].sort((a, b) => {
      const pa = Object.keys({ ...integration.packages, ...integration.testedWith }).indexOf(a.subject);
      const pb = Object.keys({ ...integration.packages, ...integration.testedWith }).indexOf(b.subject);
      if (pa !== pb) return pa - pb;
      const c = semver.compare(a.set.packages[a.subject], b.set.packages[b.subject]);
      return c !== 0 ? c : (a.set.double ? 1 : 0) - (b.set.double ? 1 : 0);
    });
    out.push(...entries);
  }
  for (const e of out) {
    e.key = keyOf(e);
    if (e.expect === undefined) e.expect = 'labels';
  }
  return out;
}

const MATRIX = build();

module.exports = { MATRIX, HAND, EXEMPT, NOTES, BUILDERS, labelOf, coverageOf, doublesOf, runs };
