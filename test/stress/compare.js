'use strict';

// Where soak memory goes: runs soak.js for each Node.js binary and each mode
// (none: no scope, als: a plain AsyncLocalStorage scope, floor: als plus
// empty hooks of the kinds customlabels installs, labels: withLabels) with
// the same load, and prints one table row per run: RSS, heap and external
// memory after the warm-up and at the end, and how much of the RSS growth is
// V8's young generation growing.
// Not part of npm run test:stress (it takes long); see README.md.
//   node test/stress/compare.js [--nodes "20 24 26"] [--modes "none als floor labels"]
//        [--requests 800000] [--warmup 50000] [--samples 16] [--gc] [--out FILE]

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { mb, signed, parseOptions } = require('./report');
const { growth, youngGeneration: young } = require('./memory');

const root = path.join(__dirname, '..', '..');
const o = parseOptions(process.argv.slice(2), {
  nodes: '20 24 26',
  modes: 'none als floor labels',
  requests: 800000,
  warmup: 50000,
  samples: 16,
  gc: false,
  out: '',
});

function nodeBinary(spec) {
  if (!/^\d+$/.test(spec)) return spec;
  const bin = path.join(root, '.node-versions', spec, 'bin', 'node');
  if (fs.existsSync(bin)) return bin;
  if (process.versions.node.split('.')[0] === spec) return process.execPath;
  throw new Error(`no ${bin}`);
}

const results = [];
const rows = [];
console.log('| Node | mode | requests | req/s | RSS after warm-up → end (MB) | RSS growth | young generation (MB) | RSS growth outside it | old space growth | heapUsed growth | external growth | mismatches |');
console.log('|---|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|');
for (const spec of o.nodes.split(/\s+/).filter(Boolean)) {
  for (const mode of o.modes.split(/\s+/).filter(Boolean)) {
    const file = path.join(os.tmpdir(), `customlabels-soak-${process.pid}-${spec}-${mode}.json`);
    const args = [
      path.join(__dirname, 'soak.js'),
      '--mode', mode,
      '--requests', String(o.requests),
      '--warmup', String(o.warmup),
      '--samples', String(o.samples),
      '--max-growth', '100000',
      '--json', file,
      ...(o.gc ? ['--gc'] : []),
    ];
    const r = spawnSync(nodeBinary(spec), args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
    if (!fs.existsSync(file)) {
      const why = [...r.stdout.split('\n').filter((l) => l.startsWith('not ok')), r.stderr.trim()].filter(Boolean);
      console.log(`| ${spec} | ${mode} | failed: ${why.join('; ')} |`);
      continue;
    }
    const result = JSON.parse(fs.readFileSync(file, 'utf8'));
    fs.unlinkSync(file);
    results.push(result);
    const s = result.series;
    const first = s[0];
    const last = s[s.length - 1];
    const grown = growth(first, last);
    const cells = [
      result.node,
      `${mode}${o.gc ? ' (GC forced at samples)' : ''}`,
      result.requests,
      Math.round(result.requests / result.seconds),
      `${mb(first.rss)} → ${mb(last.rss)}`,
      signed(grown.rss),
      `${mb(young(first))} → ${mb(young(last))}`,
      signed(grown.counted),
      signed(last.spaces.old_space - first.spaces.old_space),
      signed(last.heapUsed - first.heapUsed),
      signed(last.external - first.external),
      mode === 'none' ? '-' : result.mismatches,
    ];
    const row = `| ${cells.join(' | ')} |`;
    rows.push(row);
    console.log(row);
  }
}
if (o.out) fs.writeFileSync(o.out, `${JSON.stringify({ options: o, results }, null, 1)}\n`);
