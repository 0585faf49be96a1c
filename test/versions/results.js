'use strict';

// What a test:versions run found, and docs/versions.md's tables rendered
// from it, never from what the matrix expects. Each mode of each entry
// (test/versions/describe-versions.js) records, in the folder
// CUSTOMLABELS_VERSIONS_RESULTS names (run.js makes one per run): whether
// all its tests passed, the outcome they showed, the version of each
// package of its set as loaded inside the fixture, and the attempts it
// took. run.js renders the tables once Jest passed; a run that failed
// writes nothing.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const TABLE = require('../../lib/integrations');

// Records one mode of one entry (no-op outside run.js: no folder named).
function recordResult({ entry, wiring, hooks, passed, outcome, ran, attempts }) {
  const dir = process.env.CUSTOMLABELS_VERSIONS_RESULTS;
  if (typeof dir !== 'string' || dir === '') return;
  fs.mkdirSync(dir, { recursive: true });
  const id = crypto.createHash('sha256').update(`${entry.key}\0${wiring}\0${hooks}`).digest('hex').slice(0, 16);
  fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify({ key: entry.key, wiring, hooks, passed, outcome, ran, attempts }));
}

// Every record of a run: Map key -> [record].
function readResults(dir) {
  const out = new Map();
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (!f.endsWith('.json')) continue;
    const r = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    if (!out.has(r.key)) out.set(r.key, []);
    out.get(r.key).push(r);
  }
  return out;
}

// The entries of `entries` no record covers, or whose records failed:
// [key, why].
function missingOrFailed(entries, results, modesOf) {
  const out = [];
  for (const e of entries) {
    const records = results.get(e.key) ?? [];
    for (const [wiring, hooks] of modesOf(e)) {
      const r = records.find((x) => x.wiring === wiring && x.hooks === hooks);
      if (r === undefined) out.push([e.key, `${wiring}, hooks ${hooks}: not run`]);
      else if (!r.passed) out.push([e.key, `${wiring}, hooks ${hooks}: failed`]);
    }
  }
  return out;
}

const attemptsText = (r) => (r.attempts > 1 ? ` (${r.attempts} attempts)` : '');

// One wiring's cell: its outcome hooks on and off.
function cell(records, wiring) {
  const on = records.find((r) => r.wiring === wiring && r.hooks === 'on');
  const off = records.find((r) => r.wiring === wiring && r.hooks === 'off');
  if (on === undefined && off === undefined) return '-';
  if (on !== undefined && off !== undefined && on.outcome === off.outcome) return `hooks on and off: ${on.outcome}${attemptsText(on)}${off.attempts !== on.attempts ? `, off${attemptsText(off)}` : ''}`;
  return [on && `hooks on: ${on.outcome}${attemptsText(on)}`, off && `hooks off: ${off.outcome}${attemptsText(off)}`].filter(Boolean).join('; ');
}

// The versions an entry ran, as loaded: its subject first.
function ranText(entry, records) {
  const ran = Object.assign({}, ...records.map((r) => r.ran));
  const subject = ran[entry.subject] ?? entry.set.packages[entry.subject];
  const rest = Object.entries(ran)
    .filter(([p, v]) => p !== entry.subject && v !== null)
    .map(([p, v]) => `${p} ${v}`);
  return `${entry.subject} ${subject}${rest.length ? ` (${rest.join(', ')})` : ''}${entry.set.double ? ` with ${entry.set.double.renames} moved` : ''}`;
}

const esc = (s) => s.replace(/\|/g, '\\|');
const rangesText = (integration) =>
  [
    ...Object.entries(integration.packages).map(([p, r]) => `\`${p}\` ${r.replace(/\|\|/g, 'or')}`),
    ...Object.entries(integration.testedWith).map(([p, r]) => `\`${p}\` ${r.replace(/\|\|/g, 'or')} (tested with, not checked)`),
  ].join(', ');

// docs/versions.md's tested-versions table: per integration, each entry of
// the matrix as it ran.
function renderTested(matrix, results, exempt) {
  const out = [];
  for (const integration of TABLE) {
    const entries = matrix.filter((e) => e.integration === integration.name);
    if (entries.length === 0) continue;
    out.push(`**${integration.title}** (${rangesText(integration)})`, '', '| versions, as loaded | why | by hand | with register |', '|---|---|---|---|');
    for (const e of entries) {
      const records = results.get(e.key) ?? [];
      const node = e.node === undefined ? '' : `; Node.js ${e.node}`;
      out.push(`| ${esc(ranText(e, records))}${node} | ${esc(e.why)} | ${cell(records, 'by hand')} | ${cell(records, 'register')} |`);
    }
    const skipped = Object.entries(exempt).filter(([release]) => [...Object.keys(integration.packages), ...Object.keys(integration.testedWith)].some((p) => release.startsWith(`${p}@`)));
    for (const [release, why] of skipped) out.push(`| ${esc(release.replace(/@(?=[^@]*$)/, ' '))} | not run: ${esc(why)} | - | - |`);
    out.push('');
  }
  return out.join('\n').trimEnd();
}

// docs/versions.md's newest-releases table: per package of the table, npm's
// latest when the lane last ran, and what it showed.
function renderNewest(rows, results) {
  const out = ['| package | newest on npm | supported | result |', '|---|---|---|---|'];
  for (const row of rows) {
    const newest = `${row.version}${row.date ? ` (${row.date})` : ''}`;
    let result;
    if (!row.inRange) {
      result = `newest ${newest}: not supported yet`;
    } else {
      const records = row.keys.flatMap((k) => results.get(k) ?? []);
      result = ['by hand', 'register']
        .map((w) => [w, cell(records, w)])
        .filter(([, c]) => c !== '-')
        .map(([w, c]) => `${w}, ${c}`)
        .join('; ');
    }
    out.push(`| \`${row.package}\` | ${newest} | ${esc(row.range)} | ${esc(result)} |`);
  }
  return out.join('\n');
}

module.exports = { recordResult, readResults, missingOrFailed, renderTested, renderNewest };
