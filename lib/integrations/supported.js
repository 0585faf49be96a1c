'use strict';

// The npm packages the integrations support, and their ranges, read from
// the table of integrations (lib/integrations/index.js) and nothing else:
// no addon is loaded, no framework is required. `customlabels versions`
// prints them (bin/customlabels.js), for people and for tools; package.json
// declares no peerDependencies, so that npm never refuses an install next to
// a release outside them (register checks versions at run time instead).
//
//   customlabels versions          a table, with the version each package
//                                  has where it is run (an app's folder)
//   customlabels versions --json   { "express": ">=4.6.0 <6", ... }

const fs = require('node:fs');
const path = require('node:path');

// [{ package, range, integration, checked }] over every integration: the
// ranges it checks at run time (checked) and those it is tested with
// (testedWith: nothing checks them), sorted by package; a package two
// integrations declare must have one range.
function supportedRanges(table = require('./index')) {
  const ranges = new Map();
  for (const integration of table) {
    const declared = [...Object.entries(integration.packages).map(([p, r]) => [p, r, true]), ...Object.entries(integration.testedWith ?? {}).map(([p, r]) => [p, r, false])];
    for (const [pkg, range, checked] of declared) {
      const known = ranges.get(pkg);
      if (known !== undefined && known.range !== range) {
        throw new Error(`${pkg}: two ranges in the table of integrations (${known.integration}: ${known.range}, ${integration.name}: ${range})`);
      }
      ranges.set(pkg, { range, integration: integration.name, checked });
    }
  }
  return [...ranges].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([pkg, r]) => ({ package: pkg, ...r }));
}

// The version of `pkg` installed where `dir` finds its packages (the
// node_modules folders of dir and above, as Node.js looks them up), or null.
function installedVersion(pkg, dir) {
  for (let at = path.resolve(dir); ; ) {
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(at, 'node_modules', pkg, 'package.json'), 'utf8'));
      if (manifest !== null && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // not here
    }
    const up = path.dirname(at);
    if (up === at) return null;
    at = up;
  }
}

function pad(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ').trimEnd()).join('\n');
}

// The table `customlabels versions` prints, with what is installed from `dir`.
function renderVersions(rows, dir, satisfies) {
  const lines = [['package', 'supported', 'integration', `installed here (${dir})`]];
  for (const { package: pkg, range, integration, checked } of rows) {
    const version = installedVersion(pkg, dir);
    const outside = checked ? ': not supported, runs without its integration' : ': not tested with it';
    const here = version === null ? '-' : `${version}${satisfies(version, range) ? '' : outside}`;
    lines.push([pkg, range, integration, here]);
  }
  return `${pad(lines)}\n`;
}

const USAGE = 'usage: customlabels versions [--json]\n';

// `customlabels versions [--json]`: returns the exit code.
function versionsCommand(args, { out = process.stdout, err = process.stderr, cwd = process.cwd() } = {}) {
  const json = args.includes('--json');
  const unknown = args.filter((a) => a !== '--json');
  if (args.includes('--help') || args.includes('-h')) {
    out.write(`${USAGE}\nThe npm packages customlabels' integrations support, and the range of each\n(a release outside it runs unlabelled, with one warning). --json: one object,\n{ "<package>": "<range>" }.\n`);
    return 0;
  }
  if (unknown.length > 0) {
    err.write(`customlabels versions: unknown argument ${JSON.stringify(unknown[0])}\n${USAGE}`);
    return 2;
  }
  const rows = supportedRanges();
  if (json) {
    out.write(`${JSON.stringify(Object.fromEntries(rows.map((r) => [r.package, r.range])))}\n`);
    return 0;
  }
  out.write(renderVersions(rows, cwd, require('./kit/integration').satisfies));
  return 0;
}

module.exports = { supportedRanges, versionsCommand };
