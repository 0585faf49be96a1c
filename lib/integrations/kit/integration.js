'use strict';

// An integration, as lib/integrations/index.js lists it: one descriptor per
// integration module, checked here once, from which customlabels/register
// applies it (lib/register/), `customlabels versions` prints its ranges
// (lib/integrations/supported.js), test/versions tests them, and package.json's
// exports, the types and the docs are derived or checked (test/js/
// integrations/table.test.js).
//
//   name        what CUSTOMLABELS_INTEGRATIONS calls it ('express')
//   title       what the docs call it ('Express')
//   subpath     its package export ('./express'), or null (register only)
//   packages    { package: range }: what it patches or reads, and the
//               versions it supports, checked at run time (outside them:
//               one warning, left alone); the versions test/versions runs
//   testedWith  { package: range } (optional): packages it works with but
//               neither patches nor checks (a worker pool, the SDK's
//               context manager an app hands it), and the versions
//               test/versions runs them at
//   internals   [{ package, name, why }]: each private name a patch relies
//               on, checked before patching, and why no public hook serves
//   reach       how register reaches it: a list of
//                 { kind: 'module', package, requests?, esm?, patch }
//                   the package (or `requests`, bare names of files in it)
//                   loaded by CommonJS (a bare name, or any of its files by
//                   absolute path), or, with `esm`, its ES module build
//                   imported (module.registerHooks);
//                 { kind: 'file', package, file, patch }
//                   a file of the package CommonJS loaded with its entry;
//                 { kind: 'relative', package, test, patch }
//                   a relative require(request) inside the package for
//                   which test(request) holds;
//                 { kind: 'esm-file', package, file, binding?, patch }
//                   an ES module of the package (module.registerHooks):
//                   its namespace, or, with `binding`, the top-level
//                   function declaration of that name, which takes the
//                   value patch(value) returns;
//                 { kind: 'channel', package, channel, versionOf, patch }
//                   a diagnostics_channel the package publishes on, or,
//                   with `builtin` ('node:http') in place of package and
//                   versionOf, one Node.js publishes on (each message,
//                   never version-checked);
//                 { kind: 'global', package, key, property, versionOf, patch }
//                   a property of a registry object the package keeps at
//                   globalThis[key], each value assigned to it replaced by
//                   patch(value).
//               patch(target, context) gets what was loaded (or published)
//               and { version, file, config } (config: register's); an
//               optional outside(target, context), where the version is
//               outside the range, undoes what another reach did for that
//               package (customlabels/pprof: the profiler an unsupported
//               Pyroscope SDK loaded is left alone); an empty list: by
//               hand only
//   unpatch()   everything it patched back as it was (tests)

const KINDS = new Set(['module', 'file', 'relative', 'esm-file', 'channel', 'global']);
const NAME = /^[a-z][a-z0-9-]*$/;

function fail(name, what) {
  throw new TypeError(`integration ${name}: ${what}`);
}

function defineIntegration(spec) {
  const { name, title, subpath, packages, testedWith = {}, internals, reach, unpatch } = spec;
  if (typeof name !== 'string' || !NAME.test(name)) fail(name, 'a name of lower-case letters, digits and -');
  if (typeof title !== 'string' || title === '') fail(name, 'a title');
  if (subpath !== null && (typeof subpath !== 'string' || !subpath.startsWith('./'))) fail(name, "a subpath './…' or null");
  if (packages === null || typeof packages !== 'object' || testedWith === null || typeof testedWith !== 'object') fail(name, 'its packages and their ranges');
  const builtins = Array.isArray(reach) && reach.length > 0 && reach.every((r) => r.builtin !== undefined);
  if (Object.keys(packages).length + Object.keys(testedWith).length === 0 && !builtins) fail(name, 'a package it supports, checked or tested with, or a reach of Node.js alone');
  for (const pkg of Object.keys(testedWith)) if (packages[pkg] !== undefined) fail(name, `${pkg} both checked and tested with`);
  if (!Array.isArray(internals) || internals.some((i) => packages[i.package] === undefined || typeof i.name !== 'string' || typeof i.why !== 'string')) {
    fail(name, 'internals of its own packages, each with a name and why');
  }
  if (!Array.isArray(reach)) fail(name, 'a reach list');
  for (const r of reach) {
    if (!KINDS.has(r.kind)) fail(name, `a reach of an unknown kind ${r.kind}`);
    if (r.builtin !== undefined) {
      if (r.kind !== 'channel' || typeof r.builtin !== 'string' || !r.builtin.startsWith('node:') || r.package !== undefined) fail(name, 'a reach of Node.js alone is a channel of a node: module, with no package');
    } else if (packages[r.package] === undefined) {
      fail(name, `a reach of ${r.package}, which it declares no range for`);
    }
    if (typeof r.patch !== 'function') fail(name, `a ${r.kind} reach without its patch()`);
    if (r.outside !== undefined && typeof r.outside !== 'function') fail(name, `a ${r.kind} reach whose outside is not a function`);
  }
  if (typeof unpatch !== 'function') fail(name, 'an unpatch()');
  return Object.freeze({
    name,
    title,
    subpath,
    packages: Object.freeze({ ...packages }),
    testedWith: Object.freeze({ ...testedWith }),
    internals: Object.freeze(internals.map((i) => Object.freeze({ ...i }))),
    reach: Object.freeze(reach.map((r) => Object.freeze({ ...r }))),
    unpatch,
  });
}

module.exports = { defineIntegration };
