'use strict';

// The integration table of the README, rendered from the table of
// integrations (lib/integrations/index.js), and the list of the private
// names each integration relies on (docs/integrations.md).

// Paths as one pattern: their common start and end around a `*`
// ('dist/cjs/router/*/router.js'), or the one path.
function pattern(paths) {
  if (paths.length === 1) return paths[0];
  let start = paths[0];
  for (const p of paths) while (!p.startsWith(start)) start = start.slice(0, -1);
  let end = paths[0];
  for (const p of paths) while (!p.endsWith(end)) end = end.slice(1);
  return `${start}*${end}`;
}

// How register reaches an integration, in words: its reaches grouped by
// kind and package.
function reachOf(integration) {
  const groups = new Map();
  for (const r of integration.reach) {
    const key = `${r.kind}\0${r.package ?? r.builtin}\0${r.requests === undefined ? '' : 'requests'}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  const out = [];
  for (const rs of groups.values()) {
    const r = rs[0];
    switch (r.kind) {
      case 'module':
        out.push(r.requests === undefined ? `loading \`${r.package}\`${r.esm ? ' (and its ES module build)' : ''}` : `loading \`${pattern(rs.flatMap((x) => x.requests))}\``);
        break;
      case 'file':
        out.push(`\`${r.package}/${pattern(rs.map((x) => x.file))}\` loaded with it`);
        break;
      case 'relative':
        out.push(`\`${r.package}\` loading its server`);
        break;
      case 'esm-file':
        out.push(`its ES module${rs.length > 1 ? 's' : ''} \`${r.package}/${pattern(rs.map((x) => x.file))}\``);
        break;
      case 'channel':
        out.push(`\`diagnostics_channel\` \`${r.channel}\``);
        break;
      case 'global':
        out.push(`the global context manager of every \`${r.package}\` copy`);
        break;
      default:
        out.push(r.kind);
    }
  }
  return out.join('; ');
}

// The versions column: the ranges checked, those tested with, or, for an
// integration of Node.js alone, its modules.
function versionsOf(i) {
  const ranges = [
    ...Object.entries(i.packages).map(([p, r]) => `\`${p}\` ${r.replace(/\|\|/g, 'or')}`),
    ...Object.entries(i.testedWith).map(([p, r]) => `\`${p}\` ${r.replace(/\|\|/g, 'or')} (tested with)`),
  ];
  if (ranges.length > 0) return ranges.join(', ');
  return `Node.js's own ${[...new Set(i.reach.map((r) => `\`${r.builtin}\``))].join(', ')}`;
}

function renderIntegrations(table) {
  const head = '| integration | `CUSTOMLABELS_INTEGRATIONS` | supported versions | by hand | register reaches it through |';
  const rule = '|---|---|---|---|---|';
  const rows = table.map((i) => {
    const versions = versionsOf(i);
    const byHand = i.subpath === null ? 'register only' : `\`customlabels${i.subpath.slice(1)}\``;
    const register = i.reach.length === 0 ? 'by hand only' : reachOf(i);
    return `| [${i.title}](docs/integrations/${i.name}.md) | ${i.reach.length === 0 ? '-' : `\`${i.name}\``} | ${versions} | ${byHand} | ${register} |`;
  });
  return [head, rule, ...rows].join('\n');
}

// The private names of one integration, as a list.
function renderInternals(integration) {
  if (integration.internals.length === 0) return 'None: it uses public hooks and APIs only.';
  return integration.internals.map((i) => `- \`${i.name}\` (${i.package}): ${i.why}.`).join('\n');
}

module.exports = { renderIntegrations, renderInternals };
