'use strict';

// The table of integrations (lib/integrations/index.js) is the one place an
// integration is declared; everything that names integrations agrees with
// it: its module folder, register's configuration names, package.json's
// exports (and no peerDependencies), the types, the README's integration table
// and each integration's page (docs/integrations/<name>.md, its private
// names). A new integration, or a changed range, that one of them misses
// fails here (CUSTOMLABELS_WRITE_DOCS=1 writes the README's table and the
// pages' lists of private names).

const fs = require('node:fs');
const path = require('node:path');
const { root } = require('../helpers');
const TABLE = require('../../../lib/integrations');
const { INTEGRATIONS } = require('../../../lib/register/config');
const { checkBlock } = require('../../docs/blocks');
const { renderIntegrations, renderInternals } = require('../../docs/integrations-table');

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

test("package.json's exports are the table's subpaths, each with its CommonJS, ESM and types files", () => {
  const exported = Object.keys(pkg.exports).filter((s) => !CORE_EXPORTS.includes(s));
  const subpaths = TABLE.filter((i) => i.subpath !== null).map((i) => i.subpath);
  expect([...exported].sort()).toEqual([...subpaths].sort());
  for (const i of TABLE.filter((x) => x.subpath !== null)) {
    const entry = pkg.exports[i.subpath];
    expect({ subpath: i.subpath, entry }).toEqual({
      subpath: i.subpath,
      entry: { types: `./types/${i.name}.d.ts`, import: `./lib/integrations/${i.name}/index.mjs`, require: `./lib/integrations/${i.name}/index.js` },
    });
    for (const file of Object.values(entry)) expect({ file, exists: fs.existsSync(path.join(root, file)) }).toEqual({ file, exists: true });
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

test("the README's integration table is the one the table makes", () => {
  const { found, actual, expected } = checkBlock(path.join(root, 'README.md'), 'integrations-table', renderIntegrations(TABLE));
  expect(found).toBe(true);
  expect(actual).toBe(expected);
});

test.each(TABLE.map((i) => [i.name, i]))('docs/integrations/%s.md lists the private names it relies on, and why', (name, integration) => {
  const file = path.join(root, 'docs', 'integrations', `${name}.md`);
  expect(fs.existsSync(file)).toBe(true);
  const { found, actual, expected } = checkBlock(file, 'internals', renderInternals(integration));
  expect(found).toBe(true);
  expect(actual).toBe(expected);
});
