'use strict';

// The table of integrations (lib/integrations/index.js) is the one place an
// integration is declared; everything that names integrations follows from
// it: its module folder and register's configuration names; what `npm run
// generate` writes (package.json's exports, the ES module entries, the
// types' module list, the README's table, each docs page's header, each
// test/versions file), never stale; the types of each module, written by
// hand, declare what it exports; no peerDependencies.

const fs = require('node:fs');
const path = require('node:path');
const { root } = require('../helpers');
const TABLE = require('../../../lib/integrations');
const { INTEGRATIONS } = require('../../../lib/register/config');
const { stale } = require('../../../scripts/generate');

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const dir = path.join(root, 'lib', 'integrations');
// Subpaths of the package that are not integrations.
const CORE_EXPORTS = ['.', './register', './package.json'];

test('every integration folder is in the table, once, and the table holds nothing else', () => {
  const folders = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'kit')
    .map((e) => e.name)
    .sort();
  const names = TABLE.map((i) => i.name);
  expect(new Set(names).size).toBe(names.length);
  expect([...names].sort()).toEqual(folders);
  for (const i of TABLE) expect({ name: i.name, descriptor: require(path.join(dir, i.name, 'integration.js')) === i }).toEqual({ name: i.name, descriptor: true });
});

test("register's configuration takes the names of the integrations it applies", () => {
  expect([...INTEGRATIONS]).toEqual(TABLE.filter((i) => i.reach.length > 0).map((i) => i.name));
});

test('no file npm run generate writes is stale', () => {
  expect(stale()).toEqual([]);
});

test('a changed range makes the files that show it stale (the check above can fail)', () => {
  const changed = TABLE.map((i) => (i.name === 'express' ? { ...i, packages: { express: '>=4.6.0 <7' } } : i));
  expect(stale(changed)).toEqual(['README.md', 'docs/integrations/express.md']);
  const renamed = TABLE.map((i) => (i.name === 'grpc' ? { ...i, subpath: './grpc-js' } : i));
  expect(stale(renamed)).toEqual(expect.arrayContaining(['package.json', 'types/modules.d.ts', 'README.md', 'docs/integrations/grpc.md']));
});

test("package.json's exports name files that are there", () => {
  for (const i of TABLE.filter((x) => x.subpath !== null)) {
    for (const file of Object.values(pkg.exports[i.subpath])) expect({ file, exists: fs.existsSync(path.join(root, file)) }).toEqual({ file, exists: true });
  }
});

// The names a declaration file exports (export function/const/class/
// interface/type/let, export { a, b }, export = x).
function declaredNames(file) {
  const text = fs.readFileSync(file, 'utf8');
  const names = new Set();
  for (const m of text.matchAll(/^export (?:declare )?(?:function|const|class|let|interface|type|enum) (\w+)/gm)) names.add(m[1]);
  for (const m of text.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) {
    for (const part of m[1].split(',')) {
      const name = part.trim().split(/\s+as\s+/).pop();
      if (name) names.add(name);
    }
  }
  for (const m of text.matchAll(/^export = (\w+)/gm)) names.add(`= ${m[1]}`);
  return names;
}

test('the types of each integration declare every name its module exports', () => {
  for (const i of TABLE.filter((x) => x.subpath !== null)) {
    const declared = declaredNames(path.join(root, 'types', `${i.name}.d.ts`));
    const loaded = require(path.join(dir, i.name));
    // A plugin module (customlabels/fastify) is `export =` its function.
    const names = typeof loaded === 'function' ? [] : Object.keys(loaded);
    const missing = names.filter((n) => !declared.has(n));
    expect({ integration: i.name, missing }).toEqual({ integration: i.name, missing: [] });
  }
});

// The ranges live in the table and are checked at run time (register warns
// once and leaves a release outside them alone): a peerDependencies range,
// even an optional one, is one npm enforces whenever the app installs that
// package, and an upper bound would refuse every newer major.
test('package.json declares no peerDependencies, so npm never refuses an install next to a release outside a range', () => {
  expect(pkg.peerDependencies).toBeUndefined();
  expect(pkg.peerDependenciesMeta).toBeUndefined();
});
