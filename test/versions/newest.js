'use strict';

// The newest lane of test:versions (npm run test:versions -- --newest): per
// package of the table of integrations, npm's latest release today. One
// inside its range becomes an entry of its integration with that release as
// its subject, beside what its builder (test/versions/matrix.js) runs it
// with (a companion the table also declares is the subject of its own
// entry: Apollo Server pins the graphql-js its peer range admits, not npm's
// newest), installed as a new app would (no lockfile). One outside its
// range is not run: `say` gets one line naming it and its release date,
// and its row reads "not supported yet".

const semver = require('semver');
const TABLE = require('../../lib/integrations');
const { BUILDERS, labelOf } = require('./matrix');

// { entries, rows }: `packument(name)` resolves npm's record of a package
// ({ name, latest, dates }, test/versions/registry.js).
async function newestEntries(packument, say = () => {}, table = TABLE) {
  const names = new Set(table.flatMap((i) => [...Object.keys(i.packages), ...Object.keys(i.testedWith)]));
  const latest = new Map();
  for (const p of await Promise.all([...names].map(packument))) latest.set(p.name, p);
  const entries = new Map();
  const rows = [];
  for (const integration of table) {
    for (const [pkg, range] of Object.entries({ ...integration.packages, ...integration.testedWith })) {
      const p = latest.get(pkg);
      const row = { package: pkg, version: p.latest, date: p.dates[p.latest] ?? null, range, inRange: semver.satisfies(p.latest, range), keys: [] };
      rows.push(row);
      if (!row.inRange) {
        say(`test:versions --newest: ${pkg} ${p.latest} (released ${row.date ?? 'on an unknown date'}) is outside its range ${range}: not supported yet`);
        continue;
      }
      const built = BUILDERS[integration.name][pkg](p.latest);
      const entry = { ...built, integration: integration.name, subject: pkg, set: { ...built.set, fresh: true }, why: `npm's newest ${pkg}`, expect: 'labels' };
      entry.key = `${integration.name}: newest ${labelOf(entry)}`;
      if (!entries.has(entry.key)) entries.set(entry.key, entry);
      row.keys.push(entry.key);
    }
  }
  return { entries: [...entries.values()], rows };
}

module.exports = { newestEntries };
