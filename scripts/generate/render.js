'use strict';

// What scripts/generate.js writes from the table of integrations
// (lib/integrations/index.js): the README's integration table, each docs
// page's header, package.json's exports, each integration's ES module
// entry, the types' list of modules and each integration's test/versions
// file.

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
  const noCopy = (i) => (i.double.none === undefined ? '' : ` (No copy with it moved: ${i.double.none}; a unit test of its check stands in.)`);
  return integration.internals.map((i) => `- \`${i.name}\` (${i.package}${i.register ? ', register only' : ''}): ${i.why}.${noCopy(i)}`).join('\n');
}

const MADE_BY = 'scripts/generate.js';

// The header of docs/integrations/<name>.md: its name, what it is called,
// its ranges, the labels it sets, how register reaches it and the private
// names it relies on.
function renderHeader(i) {
  const rows = [
    ['name', i.reach.length === 0 ? `by hand only: \`customlabels${i.subpath.slice(1)}\`` : `\`${i.name}\` in \`CUSTOMLABELS_INTEGRATIONS\`${i.subpath === null ? ' (register only)' : `; by hand: \`customlabels${i.subpath.slice(1)}\``}`],
    ['supported versions', versionsOf(i)],
    ['labels it sets', i.labels.length === 0 ? 'none of its own' : i.labels.map((l) => `\`${l}\``).join(', ')],
    ['register reaches it through', i.reach.length === 0 ? 'nothing (by hand only)' : reachOf(i)],
  ];
  return [
    `# ${i.title}`,
    '',
    '| | |',
    '|---|---|',
    ...rows.map(([k, v]) => `| ${k} | ${v} |`),
    '',
    i.internals.length === 0
      ? 'Private names it relies on: none (public hooks and APIs only).'
      : 'Private names it relies on, each checked before it is relied on (where one is missing the package is left alone, with one `CUSTOMLABELS_UNSUPPORTED_FRAMEWORK` warning naming it, and the app runs unlabelled there); `npm run test:versions` runs a copy of a release with each one moved, where such a copy runs ([tested versions](../versions.md)):',
    ...(i.internals.length === 0 ? [] : ['', renderInternals(i)]),
  ].join('\n');
}

// package.json's exports: the package's own, then one per integration with
// a subpath.
function renderExports(table, own) {
  const out = { ...own };
  for (const i of table) {
    if (i.subpath === null) continue;
    out[i.subpath] = { types: `./types/${i.name}.d.ts`, import: `./lib/integrations/${i.name}/index.mjs`, require: `./lib/integrations/${i.name}/index.js` };
  }
  return out;
}

// An integration's ES module entry: its CommonJS module's exports, named
// (a module that is one function, a plugin, under its name), and as the
// default, so ESM and CommonJS users share one module.
function renderEsm(i, exported) {
  const id = i.name.replace(/-(.)/g, (_, c) => c.toUpperCase());
  const names = typeof exported === 'function' ? null : Object.keys(exported);
  return [
    `// ESM entry of customlabels${i.subpath.slice(1)}: the CommonJS implementation, so ESM and`,
    '// CommonJS users share one set of patches and one label slot. Written by',
    `// ${MADE_BY} from the table of integrations; do not edit.`,
    `import ${id} from './index.js';`,
    '',
    names === null ? `export { ${id} as ${exported.name} };` : `export const { ${names.join(', ')} } = ${id};`,
    `export default ${id};`,
    '',
  ].join('\n');
}

// types/modules.d.ts: the names register takes and the modules the package
// has, one per integration.
function renderTypesModules(table) {
  const union = (values) => values.map((v) => `'${v}'`).join(' | ');
  return [
    '// The integrations, as the table of integrations has them. Written by',
    `// ${MADE_BY}; do not edit.`,
    '',
    '/** The names `CUSTOMLABELS_INTEGRATIONS` takes (customlabels/register). */',
    `export type IntegrationName = ${union(table.filter((i) => i.reach.length > 0).map((i) => i.name))};`,
    '',
    '/** The modules of the package, one per integration an app wires by hand. */',
    `export type IntegrationModule = ${union(table.filter((i) => i.subpath !== null).map((i) => `customlabels${i.subpath.slice(1)}`))};`,
    '',
  ].join('\n');
}

// test/versions/<name>.test.js: the integration on every release its
// ranges claim, and one copy per private name moved.
function renderVersionsTest(i) {
  return [
    "'use strict';",
    '',
    `// ${i.title} on every release its ranges claim, those just outside, and`,
    '// one copy of a release per private name it relies on, with that name',
    `// moved (test/versions/describe-versions.js). Written by ${MADE_BY};`,
    '// do not edit.',
    '',
    "const { describeVersions } = require('./describe-versions');",
    '',
    `describeVersions('${i.name}');`,
    '',
  ].join('\n');
}

module.exports = { renderIntegrations, renderInternals, renderHeader, renderExports, renderEsm, renderTypesModules, renderVersionsTest, MADE_BY };
