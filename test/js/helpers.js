'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');
const addonPath = path.join(root, 'build', 'Release', 'customlabels.node');
// The reader the tests run: node-gyp's, or another build of it (e.g. CMake's
// build-cpp/customlabels-reader) named by CUSTOMLABELS_READER.
const readerPath = process.env.CUSTOMLABELS_READER || path.join(root, 'build', 'Release', 'customlabels-reader');

const tick = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Runs a Node.js script in a fresh process (the same node binary as the
// tests) and resolves with its exit code, signal, stdout and stderr.
function runNode(source, { args = [], env = {}, timeoutMs = 30000, cwd = root } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args, '-e', source], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

// Linux capability numbers (linux/capability.h) for the tests that need one.
const CAP = { SETGID: 6, SETUID: 7, SYS_PTRACE: 19, SYS_ADMIN: 21 };

// Whether this process holds `cap` in its effective set (root normally holds
// them all; a user or a container may hold none, or only some).
function hasCapability(cap) {
  const line = fs.readFileSync('/proc/self/status', 'utf8').match(/^CapEff:\s*([0-9a-f]+)$/m);
  return line !== null && ((BigInt(`0x${line[1]}`) >> BigInt(cap)) & 1n) === 1n;
}

// `test` when `condition` holds; otherwise registers the test as skipped and
// says why on stderr, one line per test:
//   customlabels-skip: {"test":"<test name>","reason":"<reason>"}
// .ci/run matches these lines against its allow-list and fails the run on a
// skip that is not listed, or not explained by such a line. With CI=true (or 1) a
// skip whose name is not in CUSTOMLABELS_ALLOWED_SKIPS (one test name per
// line, exported by .ci/run) is a failing test instead, so no CI run passes by
// not running what it is meant to run.
function testIf(condition, reason) {
  if (condition) return test;
  return (name, fn, timeout) => {
    process.stderr.write(`customlabels-skip: ${JSON.stringify({ test: name, reason })}\n`);
    const allowed = (process.env.CUSTOMLABELS_ALLOWED_SKIPS || '').split('\n').includes(name);
    if (/^(true|1)$/i.test(process.env.CI || '') && !allowed) {
      test(name, () => {
        throw new Error(`skipped in CI (${reason}), and .ci/run does not allow this test to skip`);
      });
    } else {
      test.skip(`${name} [skipped: ${reason}]`, fn, timeout);
    }
  };
}

// `inspect --json` output without the two fields every thread line also
// carries: "readers" (what each known reader sees; test/readers checks it)
// and "held" (what holding the thread took). For tests about the rest of a
// line, compared as text, so the fields are cut out of the text (a parse
// would round numbers past 2^53); a line without both is an error.
function inspectBody(stdout) {
  return stdout
    .split('\n')
    .map((line) => {
      if (line === '') return line;
      const at = line.indexOf(',"readers":{');
      if (at < 0) throw new Error(`an inspect --json line without "readers": ${line}`);
      // The end of the object: its braces, outside strings.
      let depth = 0;
      let end = at + ',"readers":'.length;
      for (let inString = false; end < line.length; end++) {
        const c = line[end];
        if (inString) {
          if (c === '\\') end++;
          else if (c === '"') inString = false;
        } else if (c === '"') {
          inString = true;
        } else if (c === '{') {
          depth++;
        } else if (c === '}' && --depth === 0) {
          break;
        }
      }
      const rest = line.slice(0, at) + line.slice(end + 1);
      const held = /,"held":\{"reads":\d+,"us":\d+\}/;
      if (!held.test(rest)) throw new Error(`an inspect --json line without "held": ${line}`);
      return rest.replace(held, '');
    })
    .join('\n');
}

// A copy of the package at `dir`, as npm would install it there: lib/,
// package.json, its dependencies (linked from the repository's
// node_modules) and, with `addon`, its own copy of the built addon file.
// Returns the addon file's path (or null).
function copyPackage(dir, { addon = true } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  fs.cpSync(path.join(root, 'lib'), path.join(dir, 'lib'), { recursive: true });
  fs.cpSync(path.join(root, 'package.json'), path.join(dir, 'package.json'));
  const { dependencies = {} } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  for (const dep of Object.keys(dependencies)) {
    const at = path.join(dir, 'node_modules', dep);
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(path.join(root, 'node_modules', dep), at, 'dir');
  }
  if (!addon) return null;
  const file = path.join(dir, 'build', 'Release', 'customlabels.node');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.cpSync(addonPath, file);
  return file;
}

// A sampler given the CPU first where it runs beside the target (nice -10,
// where the tests may raise a priority: root with CAP_SYS_NICE, as CI runs;
// CI runs two suites on two CPUs, and a reader that waits behind them is
// late at a tenth to a fifth of its ticks). A profiler in the kernel (eBPF)
// does not queue behind the target; a sampler in a process must ask.
// Without the right, it runs as it is and the windows' checks below name
// what that cost. Returns the child.
function favoured(child) {
  try {
    os.setPriority(child.pid, -10);
  } catch {
    // no right to (not root, or no CAP_SYS_NICE): unfitWindow names a late reader
  }
  return child;
}

// fn() with the target `child` favoured as well, for a sample's window only:
// each tick stops the target (PTRACE_INTERRUPT), and a target waiting for a
// CPU makes the reader wait. Only for the window: a favoured target that
// spins on between windows starves the other processes of its suite (the
// next test's target got a fifth of its samples).
async function favouredDuring(child, fn) {
  let before = null;
  try {
    before = os.getPriority(child.pid);
    os.setPriority(child.pid, -10);
  } catch {
    before = null; // no right to: as favoured()
  }
  try {
    return await fn();
  } finally {
    if (before !== null) {
      try {
        os.setPriority(child.pid, before);
      } catch {
        // the target is gone
      }
    }
  }
}

// Why a window of `customlabels sample` cannot judge what it sampled, or
// null: the target starved (its thread sampled `least` times or fewer) or the
// reader late at more than 5% of its ticks (a reader that loses the CPU takes
// its missed samples in a burst that all see one label set). `run` holds the
// --json row's ticks, late_ticks and thread_samples. The causes are the
// machine's: CI runs suites side by side.
const lateWindow = (run) => (run.late_ticks > run.ticks * 0.05 ? `the reader was late at ${run.late_ticks} of ${run.ticks} ticks` : null);
function unfitWindow(run, least) {
  if (run.thread_samples <= least) return `the target starved (${run.thread_samples} samples, at least ${least + 1} wanted)`;
  return lateWindow(run);
}

// Node.js <major>'s binary (scripts/node-versions.js), with the V8 unit for
// it in build/v8, built here if missing: a checkout's `npm install` builds
// the unit of the Node.js running it only (.ci/run builds 22, 24 and 26), and
// a test that runs another major without hooks needs that major's. Call it
// at a test file's top level: the build takes seconds, outside any test's
// timeout.
function nodeWithUnit(major) {
  const { nodeDir, nodeVersion } = require('../../scripts/node-versions');
  const { buildUnit, headerVersion } = require('../../scripts/build-v8');
  const { unitFile } = require('../../lib/core/v8-unit');
  const dir = nodeDir(major);
  if (!fs.existsSync(path.join(root, 'build', 'v8', unitFile(headerVersion(dir).abi)))) buildUnit(dir);
  return nodeVersion(major);
}

module.exports = { root, addonPath, readerPath, tick, sleep, runNode, CAP, hasCapability, testIf, inspectBody, copyPackage, lateWindow, unfitWindow, favoured, favouredDuring, nodeWithUnit };
