'use strict';

// The tested-versions table of docs/versions.md, rendered from the matrix
// (test/versions/matrix.js) and what its installs resolved (the version of
// each package a set names, and of the router Express 5 brings).

const fs = require('node:fs');
const path = require('node:path');
const TABLE = require('../../lib/integrations');
const { labelOf, modesOf } = require('./describe-versions');
const { SUITES } = require('./suites');

function resolvedOf(entry, dir) {
  const read = (pkg) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
    } catch {
      return null;
    }
  };
  const pinned = entry.set.overrides !== undefined && entry.set.overrides.router !== undefined;
  const extra = entry.integration === 'express' && !pinned && read('router') !== null ? [`router ${read('router')}`] : [];
  return extra;
}

function modesText(entry) {
  const modes = modesOf(entry, SUITES[entry.integration]);
  const wirings = [...new Set(modes.map(([w]) => (w === 'register' ? 'register' : 'by hand')))];
  const hooks = [...new Set(modes.map(([, h]) => h))];
  return `${wirings.join(', ')}; hooks ${hooks.join(' and ')}`;
}

// `dirs`: Map set -> its folder in the cache.
function renderVersions(matrix, dirs) {
  const out = [];
  for (const integration of TABLE) {
    const entries = matrix.filter((e) => e.integration === integration.name);
    if (entries.length === 0) continue;
    const ranges = Object.entries(integration.packages)
      .map(([p, r]) => `\`${p}\` ${r.replace(/\|\|/g, 'or')}`)
      .join(', ');
    out.push(`**${integration.title}** (${ranges})`, '', '| versions | why | expected | wired, hooks |', '|---|---|---|---|');
    for (const entry of entries) {
      const extra = resolvedOf(entry, dirs.get(entry.set));
      const node = entry.node === undefined ? '' : `; Node.js ${entry.node}`;
      const expected = entry.expect === 'unsupported' ? 'one warning, left unpatched, no label wrong' : 'every checkpoint labelled exactly';
      out.push(`| ${labelOf(entry)}${extra.length ? ` [${extra.join(', ')}]` : ''}${node} | ${entry.why.replace(/\|/g, '\\|')} | ${expected} | ${modesText(entry)} |`);
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}

module.exports = { renderVersions };
