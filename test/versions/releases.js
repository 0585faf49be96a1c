'use strict';

// The releases of every package the table of integrations declares a range
// for, as npm's registry had them when they were last recorded
// (test/versions/releases.json, written by `npm run versions:refresh`): what
// the matrix (test/versions/matrix.js) covers each range from, so that a run
// today and one next month test the same releases until someone refreshes.
// Released versions only (no prereleases), ascending, with their dates.

const fs = require('node:fs');
const path = require('node:path');
const semver = require('semver');

const FILE = path.join(__dirname, 'releases.json');

function load() {
  try {
    return JSON.parse(fs.readFileSync(FILE, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return { recorded: null, packages: {} };
    throw err;
  }
}

const RELEASES = load();

// The releases of `pkg` recorded, ascending; throws if none are.
function releasesOf(pkg) {
  const p = RELEASES.packages[pkg];
  if (p === undefined) throw new Error(`test/versions/releases.json records no releases of ${pkg}: run npm run versions:refresh`);
  return p.versions;
}

const dateOf = (pkg, version) => (RELEASES.packages[pkg] && RELEASES.packages[pkg].dates[version]) || null;

// A release line as npm's caret has it: the major, or for 0.x the minor
// ('4', '0.10').
const lineOf = (version) => (semver.major(version) === 0 ? `0.${semver.minor(version)}` : String(semver.major(version)));

// What covering `range` of `versions` takes: per release line in it, its
// lowest and newest release; and the newest release below it and the lowest
// above it, where there is one.
function coverage(versions, range) {
  const inside = versions.filter((v) => semver.satisfies(v, range));
  const lines = [];
  for (const v of inside) {
    const line = lineOf(v);
    const last = lines[lines.length - 1];
    if (last !== undefined && last.line === line) last.newest = v;
    else lines.push({ line, lowest: v, newest: v });
  }
  const below = inside.length === 0 ? null : (versions.filter((v) => semver.lt(v, inside[0])).pop() ?? null);
  const above = inside.length === 0 ? null : (versions.find((v) => semver.gt(v, inside[inside.length - 1])) ?? null);
  return { lines, below, above };
}

module.exports = { RELEASES, FILE, releasesOf, dateOf, lineOf, coverage };
