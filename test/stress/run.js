'use strict';

// npm run test:stress: runs each stress suite (soak.js, churn.js) in a child
// process of its own, under each Node.js binary asked for, and counts their
// "ok" / "not ok" lines; a suite that exits non-zero without saying why, or
// runs past its time limit, counts as one failure. Ends with
// "N passed, N failed" and exits 1 if anything failed.
//   node test/stress/run.js [--node PATH|VERSION]... [--only soak|churn] [--long]
//        [--soak-args "..."] [--churn-args "..."]
// --node 24 means .node-versions/24/bin/node (or this Node.js if it is a 24
// and there is none); without --node, the Node.js
// running this script (STRESS_NODES="20 24 26" in the environment does the
// same as repeated --node). --long runs the sizes the README's figures
// come from.

const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { spawn, execFileSync } = require('node:child_process');

const root = path.join(__dirname, '..', '..');
const SUITES = {
  soak: { file: 'soak.js', args: [], long: ['--requests', '800000', '--warmup', '50000', '--samples', '16'] },
  churn: { file: 'churn.js', args: [], long: ['--workers', '1000', '--checkpoint', '100'] },
};

function usage(message) {
  process.stderr.write(`${message}\nusage: node test/stress/run.js [--node PATH|VERSION]... [--only soak|churn] [--long] [--soak-args "..."] [--churn-args "..."]\n`);
  process.exit(2);
}

function resolveNode(spec) {
  if (/^\d+$/.test(spec)) {
    const bin = path.join(root, '.node-versions', spec, 'bin', 'node');
    if (!fs.existsSync(bin) && process.versions.node.split('.')[0] === spec) return process.execPath;
    if (!fs.existsSync(bin)) usage(`no ${bin}: fetch Node.js ${spec} into .node-versions/${spec} first`);
    return bin;
  }
  if (!fs.existsSync(spec)) usage(`no Node.js binary at ${spec}`);
  return path.resolve(spec);
}

function parse(argv) {
  const o = { nodes: [], only: null, long: false, extra: { soak: [], churn: [] } };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
    if (a === '--node') o.nodes.push(resolveNode(value()));
    else if (a === '--only') {
      o.only = value();
      if (!(o.only in SUITES)) usage(`--only takes ${Object.keys(SUITES).join(' or ')}`);
    } else if (a === '--long') o.long = true;
    else if (a === '--soak-args') o.extra.soak = value().split(/\s+/).filter(Boolean);
    else if (a === '--churn-args') o.extra.churn = value().split(/\s+/).filter(Boolean);
    else usage(`unknown argument '${a}'`);
  }
  if (o.nodes.length === 0 && process.env.STRESS_NODES) {
    o.nodes = process.env.STRESS_NODES.split(/[\s,]+/).filter(Boolean).map(resolveNode);
  }
  if (o.nodes.length === 0) o.nodes = [process.execPath];
  return o;
}

function runSuite(node, suite, args, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(node, [path.join(__dirname, suite.file), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let passed = 0;
    let failed = 0;
    const count = (line) => {
      if (line.startsWith('ok - ')) passed += 1;
      else if (line.startsWith('not ok - ')) failed += 1;
    };
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      count(line);
      console.log(line);
    });
    readline.createInterface({ input: child.stderr }).on('line', (line) => console.log(`# stderr: ${line}`));
    const timer = setTimeout(() => {
      console.log(`not ok - ${suite.file}: ran past ${timeoutMs / 1000} s, killed`);
      failed += 1;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if ((code !== 0 || signal !== null) && failed === 0) {
        console.log(`not ok - ${suite.file}: exited with ${code ?? signal} without a failed check`);
        failed += 1;
      }
      if (code === 0 && passed === 0) {
        console.log(`not ok - ${suite.file}: exited 0 without running a check`);
        failed += 1;
      }
      resolve({ passed, failed });
    });
  });
}

async function main() {
  const o = parse(process.argv.slice(2));
  const started = Date.now();
  let passed = 0;
  let failed = 0;
  for (const node of o.nodes) {
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    for (const [name, suite] of Object.entries(SUITES)) {
      if (o.only !== null && o.only !== name) continue;
      const args = [...suite.args, ...(o.long ? suite.long : []), ...o.extra[name]];
      console.log(`# ${name} on Node.js ${version} (${node}) ${args.join(' ')}`);
      const t0 = Date.now();
      const r = await runSuite(node, suite, args, (o.long ? 120 : 10) * 60 * 1000);
      console.log(`# ${name} on Node.js ${version}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      passed += r.passed;
      failed += r.failed;
    }
  }
  console.log(`# total ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main();
