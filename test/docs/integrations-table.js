'use strict';

// The integration table of the README, rendered from the table of
// integrations (lib/integrations/index.js), and the list of the private
// names each integration relies on (docs/integrations.md).

const CHANNEL = (r) => `\`diagnostics_channel\` \`${r.channel}\``;

// How register reaches an integration, in words.
function reachOf(integration) {
  const out = [];
  for (const r of integration.reach) {
    let text;
    switch (r.kind) {
      case 'module':
        text = r.requests === undefined ? `loading \`${r.package}\`${r.esm ? ' (and its ES module build)' : ''}` : `loading ${r.requests.map((q) => `\`${q}\``).join(', ')}`;
        break;
      case 'file':
        text = `\`${r.package}/${r.file}\` loaded with it`;
        break;
      case 'relative':
        text = `\`${r.package}\` loading its server`;
        break;
      case 'esm-file':
        text = `its ES module \`${r.package}/${r.file}\``;
        break;
      case 'channel':
        text = CHANNEL(r);
        break;
      case 'global':
        text = `the global context manager of every \`${r.package}\` copy`;
        break;
      default:
        text = r.kind;
    }
    if (!out.includes(text)) out.push(text);
  }
  // Hono's five routers read as one line each kind.
  return out.length > 3 ? `${out.slice(0, 2).join('; ')}; and ${out.length - 2} more` : out.join('; ');
}

function renderIntegrations(table) {
  const head = '| integration | `CUSTOMLABELS_INTEGRATIONS` | supported versions | by hand | register reaches it through |';
  const rule = '|---|---|---|---|---|';
  const rows = table.map((i) => {
    const versions = Object.entries(i.packages)
      .map(([p, r]) => `\`${p}\` ${r.replace(/\|\|/g, 'or')}`)
      .join(', ');
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
