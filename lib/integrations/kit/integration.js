'use strict';

// An integration, as lib/integrations/index.js lists it: one descriptor per
// integration folder, checked and frozen here, that the rest of the package
// runs on. customlabels/register applies its reach (lib/register/);
// `customlabels versions` prints its ranges (lib/integrations/supported.js);
// test/versions runs its ranges and one copy of its package per private
// name with that name moved; `npm run generate` writes package.json's
// exports, the types' module list, the README's rows and each docs page's
// header from it (scripts/generate.js).
//
//   name        what CUSTOMLABELS_INTEGRATIONS calls it ('express')
//   title       what the docs call it ('Express')
//   subpath     its package export ('./express'), or null (register only)
//   labels      the label names it sets itself ('method', 'route'), which
//               configured labels must not take (lib/register/config.js)
//   packages    { package: range }: what it patches or reads, and the
//               versions it supports, checked at run time by supports()
//               (outside them: one warning, left alone); the ranges
//               test/versions runs. npm's ranges, parsed here.
//   testedWith  { package: range } (optional): packages it works with but
//               neither patches nor checks (a worker pool, the SDK's
//               context manager an app hands it): only test/versions reads
//               them
//   internals   [{ package, of, name, why, check, register?, double }]:
//               each private name a patch relies on, and why no public hook
//               serves. check(subject) says whether it is there on what the
//               patch is given (`of` names that: 'module', 'server', ...;
//               one package per `of`); guard(of, subject, context) runs the
//               checks of an `of` before patching (`register`: only
//               register relies on it). double: how test/versions makes a
//               release with this name moved: { edits: [[file, from, to]],
//               move?: [from, to] } (files under node_modules), at
//               `version` (default: the newest release in the range),
//               wired by register alone where `register` is set, else by
//               hand and register; or
//               { none: why } where no copy with the name moved is a
//               release that runs (its package reads the name itself):
//               a unit test of its guard stands in
//   reach       how register reaches it: a list of
//                 { kind: 'module', package, requests?, esm? }
//                   the package (or `requests`, bare names of files in it)
//                   loaded by CommonJS (a bare name, or any of its files by
//                   absolute path), or, with `esm`, its ES module build
//                   imported (module.registerHooks);
//                 { kind: 'file', package, file }
//                   a file of the package CommonJS loaded with its entry;
//                 { kind: 'relative', package, test }
//                   a relative require(request) inside the package for
//                   which test(request) holds;
//                 { kind: 'esm-file', package, file, binding? }
//                   an ES module of the package (module.registerHooks):
//                   its namespace, or, with `binding`, the top-level
//                   function declaration of that name, which takes the
//                   value patch() returns;
//                 { kind: 'channel', package, channel, versionOf }
//                   a diagnostics_channel the package publishes on, or,
//                   with `builtin` ('node:http') in place of package and
//                   versionOf, one Node.js publishes on (each message,
//                   never version-checked);
//                 { kind: 'global', package, key, property, versionOf }
//                   a property of a registry object the package keeps at
//                   globalThis[key], each value assigned to it replaced by
//                   what patch() returns;
//               each with patch(exports, context) and unpatch(exports,
//               context), which undoes it; an optional outside(exports,
//               context), where the version is outside the range, undoes
//               what another reach did for that package. An empty list: by
//               hand only.
//
// context: { integration, version, file, config }: the version found (null:
// unknown), the file it was loaded from, and register's configuration
// (lib/register/config.js) or, for a call the app makes itself,
// byHand(options) (config.byHand: true, config.options).
//
// A descriptor's methods: supports(package, version), the one version
// check; guard(of, subject, context), the internals'; apply(reach, exports,
// context), both around a reach's patch, recorded for unpatch(), which
// undoes every patch applied, newest first.

const { warnUnsupported } = require('./versions');

const KINDS = new Set(['module', 'file', 'relative', 'esm-file', 'channel', 'global']);
const NAME = /^[a-z][a-z0-9-]*$/;
const isFunction = (f) => typeof f === 'function';

let semver; // npm's own: its Range and valid()
const loadSemver = () => (semver ??= { Range: require('semver/classes/range'), valid: require('semver/functions/valid') });

// Whether `version` is in `range` (a string or a parsed Range; false for
// what is not a version). A prerelease satisfies no range, as npm has it.
function satisfies(version, range) {
  const { Range, valid } = loadSemver();
  const parsed = typeof range === 'string' ? new Range(range) : range;
  return typeof version === 'string' && valid(version) !== null && parsed.test(version);
}

function fail(name, what) {
  throw new TypeError(`integration ${name}: ${what}`);
}

// The configuration of a call an app makes itself (instrument(module,
// options)), in the shape of register's.
function byHand(options) {
  return Object.freeze({ byHand: true, options, headers: [], labels: {}, otelAttributes: {} });
}

function checkRanges(name, field, ranges) {
  if (ranges === null || typeof ranges !== 'object') fail(name, `${field}: { package: range }`);
  const { Range } = loadSemver();
  const parsed = {};
  for (const [pkg, range] of Object.entries(ranges)) {
    try {
      parsed[pkg] = new Range(range);
    } catch {
      fail(name, `${field}: ${pkg} ${JSON.stringify(range)} is not a range npm reads`);
    }
  }
  return parsed;
}

function checkInternals(name, internals, packages) {
  if (!Array.isArray(internals)) fail(name, 'an internals list');
  const packageOf = new Map(); // of -> package
  for (const i of internals) {
    const what = `internal ${JSON.stringify(i && i.name)}`;
    if (i === null || typeof i !== 'object' || typeof i.name !== 'string' || typeof i.why !== 'string') fail(name, `${what}: a name and why`);
    if (packages[i.package] === undefined) fail(name, `${what}: of ${i.package}, which it declares no range for`);
    if (typeof i.of !== 'string' || !isFunction(i.check)) fail(name, `${what}: what it is checked on (of) and its check()`);
    if (packageOf.has(i.of) && packageOf.get(i.of) !== i.package) fail(name, `${what}: ${i.of} is checked on ${packageOf.get(i.of)} already`);
    packageOf.set(i.of, i.package);
    const d = i.double;
    if (d !== null && typeof d === 'object' && typeof d.none === 'string' && d.none !== '') continue; // no copy can be made: why
    if (d === null || typeof d !== 'object' || !Array.isArray(d.edits) || d.edits.some((e) => !Array.isArray(e) || e.length !== 3 || e.some((s) => typeof s !== 'string'))) {
      fail(name, `${what}: a double, { edits: [[file, from, to]] } or { none: why }`);
    }
    if (d.edits.length === 0 && d.move === undefined) fail(name, `${what}: a double that changes something`);
  }
}

function checkReach(name, reach, packages) {
  if (!Array.isArray(reach)) fail(name, 'a reach list');
  for (const r of reach) {
    if (!KINDS.has(r.kind)) fail(name, `a reach of an unknown kind ${r.kind}`);
    if (r.builtin !== undefined) {
      if (r.kind !== 'channel' || typeof r.builtin !== 'string' || !r.builtin.startsWith('node:') || r.package !== undefined) fail(name, 'a reach of Node.js alone is a channel of a node: module, with no package');
    } else if (packages[r.package] === undefined) {
      fail(name, `a reach of ${r.package}, which it declares no range for`);
    }
    if (!isFunction(r.patch) || !isFunction(r.unpatch)) fail(name, `a ${r.kind} reach without its patch() and unpatch()`);
    if (r.outside !== undefined && !isFunction(r.outside)) fail(name, `a ${r.kind} reach whose outside is not a function`);
  }
}

class Integration {
  #ranges;
  #applied = []; // [{ reach, exports, context }]
  #channels = new Set(); // channel reaches recorded (one record, every message)

  constructor(spec) {
    const { name, title, subpath, labels = [], packages, testedWith = {}, internals, reach } = spec;
    if (typeof name !== 'string' || !NAME.test(name)) fail(name, 'a name of lower-case letters, digits and -');
    if (typeof title !== 'string' || title === '') fail(name, 'a title');
    if (subpath !== null && (typeof subpath !== 'string' || !subpath.startsWith('./'))) fail(name, "a subpath './…' or null");
    if (subpath === null && Array.isArray(reach) && reach.length === 0) fail(name, 'a subpath or a reach: one way to be used');
    if (!Array.isArray(labels) || labels.some((l) => typeof l !== 'string' || l === '')) fail(name, 'the label names it sets, a list');
    this.#ranges = checkRanges(name, 'packages', packages);
    checkRanges(name, 'testedWith', testedWith);
    const builtins = Array.isArray(reach) && reach.length > 0 && reach.every((r) => r.builtin !== undefined);
    if (Object.keys(packages).length + Object.keys(testedWith).length === 0 && !builtins) fail(name, 'a package it supports, checked or tested with, or a reach of Node.js alone');
    for (const pkg of Object.keys(testedWith)) if (packages[pkg] !== undefined) fail(name, `${pkg} both checked and tested with`);
    checkInternals(name, internals, packages);
    checkReach(name, reach, packages);
    this.name = name;
    this.title = title;
    this.subpath = subpath;
    this.labels = Object.freeze([...labels]);
    this.packages = Object.freeze({ ...packages });
    this.testedWith = Object.freeze({ ...testedWith });
    this.internals = Object.freeze(internals.map((i) => Object.freeze({ ...i, double: Object.freeze({ ...i.double }) })));
    this.reach = Object.freeze(reach.map((r) => Object.freeze({ ...r })));
    Object.freeze(this);
  }

  // Whether it supports `version` of `pkg` (null: unknown, the internals
  // decide); one warning (CUSTOMLABELS_UNSUPPORTED_FRAMEWORK) if not.
  supports(pkg, version) {
    const range = this.#ranges[pkg];
    if (range === undefined) throw new Error(`customlabels/${this.name} declares no range for ${pkg}`);
    if (version === null || version === undefined || satisfies(version, range)) return true;
    warnUnsupported(this.name, pkg, version, this.packages[pkg], 'outside the supported range');
    return false;
  }

  // Whether every private name checked on `of` is there on `subject` (those
  // only register relies on, under register alone); one warning naming
  // those that are not, if not. context: { version, config }.
  guard(of, subject, { version = null, config } = {}) {
    const register = config !== undefined && config.byHand !== true;
    const gone = [];
    let pkg;
    for (const i of this.internals) {
      if (i.of !== of || (i.register === true && !register)) continue;
      pkg = i.package;
      let ok;
      try {
        ok = i.check(subject) === true;
      } catch {
        ok = false;
      }
      if (!ok) gone.push(i.name);
    }
    if (pkg === undefined) throw new Error(`customlabels/${this.name} checks nothing on ${of}`);
    if (gone.length === 0) return true;
    warnUnsupported(this.name, pkg, version, this.packages[pkg], `${gone.join(', ')} ${gone.length === 1 ? 'is' : 'are'} missing`);
    return false;
  }

  // Applies `reach` to `exports` (what was loaded or published) where its
  // version is supported; returns what its patch returns (undefined where
  // it does not apply). Outside the range, its outside() runs. A patch
  // that throws under register is one warning, never a failed start; the
  // app's own call gets the error.
  apply(reach, exports, { version = null, file, config }) {
    const context = Object.freeze({ integration: this, version, file, config });
    if (reach.builtin === undefined && !this.supports(reach.package, version)) {
      if (reach.outside !== undefined) {
        try {
          reach.outside(exports, context);
        } catch {
          // left as it is
        }
      }
      return undefined;
    }
    let out;
    try {
      out = reach.patch(exports, context);
    } catch (err) {
      if (config.byHand === true || reach.builtin !== undefined) throw err;
      warnUnsupported(this.name, reach.package, version, this.packages[reach.package], `patching it failed (${err && err.message})`);
      return undefined;
    }
    this.record(reach, exports, context);
    return out;
  }

  // Records a patch applied, for unpatch(): a channel's reach once (its
  // patch runs per message; register calls a builtin channel's itself).
  record(reach, exports, context) {
    if (reach.kind === 'channel') {
      if (this.#channels.has(reach)) return;
      this.#channels.add(reach);
      this.#applied.push({ reach, exports: undefined, context });
      return;
    }
    this.#applied.push({ reach, exports, context });
  }

  // Everything apply() patched, back as it was, newest first (tests).
  unpatch() {
    const applied = this.#applied.splice(0).reverse();
    this.#channels.clear();
    for (const { reach, exports, context } of applied) reach.unpatch(exports, context);
  }
}

const defineIntegration = (spec) => new Integration(spec);

module.exports = { defineIntegration, byHand, satisfies };
