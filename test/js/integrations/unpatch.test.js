'use strict';

// Every patch has its unpatch (lib/integrations/kit/integration.js): each
// CommonJS reach of the table, applied as register applies it to the
// package this repository installs, changes what the package exports, and
// integration.unpatch() puts back every property it changed
// (test/js/fixtures/unpatch-case.js, one process per reach).

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const semver = require('semver');
const TABLE = require('../../../lib/integrations');
const { testIf } = require('../helpers');

const CASE = path.join(__dirname, '../fixtures/unpatch-case.js');
// Where this repository installs packages: its own devDependencies, and the
// installs of test/peers (Next.js).
const PEERS = path.join(__dirname, '../../peers');
const WHERE = [path.join(__dirname, '../../..'), ...fs.readdirSync(PEERS).map((d) => path.join(PEERS, d)).filter((d) => fs.statSync(d).isDirectory()).sort().reverse()];

// The file a reach loads, where this repository installs its package (a
// 'file' reach: by its path in the package, which its exports may hide).
function fileOf(reach, request) {
  try {
    if (reach.kind !== 'file') return require.resolve(request, { paths: WHERE });
    const main = require.resolve(reach.package, { paths: WHERE });
    const at = `/node_modules/${reach.package}/`;
    return main.slice(0, main.lastIndexOf(at) + at.length) + reach.file;
  } catch {
    return null;
  }
}

// [title, integration name, reach index, file]: the CommonJS reaches.
const cases = [];
for (const integration of TABLE) {
  integration.reach.forEach((reach, index) => {
    const requests = reach.kind === 'file' ? [reach.file] : reach.kind === 'module' && reach.esm !== true ? (reach.requests ?? [reach.package]) : [];
    for (const request of requests) cases.push([`${integration.name}: ${reach.kind === 'file' ? `${reach.package}/${request}` : request}`, integration.name, index, fileOf(reach, request)]);
  });
}

test('every integration with a CommonJS reach has one this repository installs (no integration is left out for want of its package)', () => {
  const names = [...new Set(cases.map(([, name]) => name))];
  expect(names.length).toBeGreaterThanOrEqual(9);
  for (const name of names) expect({ name, installed: cases.some(([, n, , file]) => n === name && file !== null) }).toEqual({ name, installed: true });
});

// Packages that do not load on every Node.js line the suite runs on.
const NEEDS = { '@pyroscope/nodejs': ['20.20.2', "Pyroscope's Node.js SDK 0.6 needs Node.js >= 20.20.2"] };

describe.each(cases.filter(([, , , file]) => file !== null))('%s', (title, name, index, file) => {
  const need = NEEDS[TABLE.find((i) => i.name === name).reach[index].package];
  const testHere = need === undefined ? test : testIf(semver.gte(process.version, need[0]), need[1]);
  testHere(`${title}: register patches what it exports, and unpatch() puts every property back`, () => {
    const { changed, left } = JSON.parse(execFileSync(process.execPath, [CASE, name, String(index), file], { encoding: 'utf8', timeout: 30_000 }));
    expect(left).toEqual([]);
    expect(changed.length).toBeGreaterThan(0);
  });
});
