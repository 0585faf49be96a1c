'use strict';

// Which profiler sees the labels, on which Node.js, in which mode: the
// checkpoint battery (test/js/fixtures/checkpoints.js: sync and nested
// scopes, awaits, timers, I/O, interleaved requests, workers) run under each
// Node.js line with hooks on and off, every checkpoint read from outside by
// `customlabels inspect`, whose "readers" apply each known reader's own
// lookup (src/reader/reader_lookups.cc: the Parca agent's fork, the design
// doc's reader, OTEP 4947 readers, plain ABI v1 readers). At each checkpoint
// every reader must see exactly the checkpoint's labels where the table
// below says it sees them, and none elsewhere; `check --readers` must give
// the same answer, naming the failing step, with labelled threads and with
// none; and the README's table must be the one these runs produce
// (CUSTOMLABELS_WRITE_README=1 writes it).
//
//   npm run test:readers

const { spawn, execFile } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { nodeDir } = require('../../scripts/node-versions');
const { root, readerPath } = require('../js/helpers');
const { renderTable, replaceTable, README_BEGIN } = require('./table');

const fixture = path.join(root, 'test', 'js', 'fixtures', 'checkpoints.js');

// The Node.js lines and what each reader sees there, by mode: the answer,
// and for a miss the step the answer must name.
const LINES = [
  { key: '20', version: '20', modes: ['on'] },
  { key: '22', version: '22', flags: ['--experimental-async-context-frame'], modes: ['on', 'off'] },
  { key: '24.10', version: '24.10.0', modes: ['on', 'off'] },
  { key: '24', version: '24', modes: ['on', 'off'] },
  { key: '26', version: '26', modes: ['on', 'off'] },
];
const YES = { answer: 'sees' };
const NO_TLS_WITHOUT_HOOKS = { answer: 'no', step: /custom_labels_current_set stays NULL on threads without hooks/ };
const NO_SCHEMA = { answer: 'no', step: /process context says nodejs_v1_dev, which it refuses/ };
const EXPECTED = {
  on: { 'abi-v1': YES, parca: YES, 'otel-tls': YES, 'otel-nodejs': YES },
  off: {
    '22': { 'abi-v1': NO_TLS_WITHOUT_HOOKS, parca: YES, 'otel-tls': NO_SCHEMA, 'otel-nodejs': YES },
    '24.10': { 'abi-v1': NO_TLS_WITHOUT_HOOKS, parca: YES, 'otel-tls': NO_SCHEMA, 'otel-nodejs': YES },
    '24': {
      'abi-v1': NO_TLS_WITHOUT_HOOKS,
      parca: { answer: 'no', step: /looks up _ZN2v88internal18g_current_isolate_E in \.dynsym only on Node < 26; Node 24\.\d+\.\d+ has it only in \.symtab/ },
      'otel-tls': NO_SCHEMA,
      'otel-nodejs': YES,
    },
    '26': {
      'abi-v1': NO_TLS_WITHOUT_HOOKS,
      parca: { answer: 'no', step: /reads the CPED at isolate\+640 on Node >= 25; Node 26\.\d+\.\d+ keeps it at \+(?!640)\d+/ },
      'otel-tls': NO_SCHEMA,
      'otel-nodejs': YES,
    },
  },
};
const expectedFor = (line, mode) => (mode === 'on' ? EXPECTED.on : EXPECTED.off[line.key]);
const READERS = ['abi-v1', 'parca', 'otel-tls', 'otel-nodejs'];

function reader(args) {
  return new Promise((resolve) => {
    execFile(readerPath, args, { encoding: 'utf8', timeout: 30000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, stdout, stderr });
    });
  });
}

// Runs the battery under `node` and reads every checkpoint from outside;
// `check --readers` at the first labelled checkpoint and at the last, where
// no thread is labelled.
async function runBattery(node, flags, hooks) {
  const child = spawn(node, [...flags, fixture], {
    cwd: root,
    env: { ...process.env, CUSTOMLABELS_HOOKS: hooks ? '1' : '0' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const checkpoints = [];
  let labelled = null;
  let idle = null;
  for await (const line of readline.createInterface({ input: child.stdout })) {
    const cp = JSON.parse(line);
    const seen = await reader(['inspect', String(child.pid), '--tid', String(cp.tid), '--json']);
    const row = seen.code === 0 ? JSON.parse(seen.stdout.trim().split('\n')[0]) : null;
    checkpoints.push({ cp, code: seen.code, stderr: seen.stderr, row });
    if (cp.name === 'sync scope' || cp.name === 'done') {
      const check = await reader(['check', String(child.pid), '--readers', '--json']);
      const verdict = { code: check.code, stderr: check.stderr, json: check.code === 0 ? JSON.parse(check.stdout) : null };
      if (cp.name === 'sync scope') labelled = verdict;
      else idle = verdict;
    }
    child.stdin.write('\n');
  }
  const code = await new Promise((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', r)));
  return { code, checkpoints, labelled, idle };
}

const runs = []; // { line, mode, version, result }

beforeAll(async () => {
  for (const line of LINES) {
    const node = path.join(nodeDir(line.version), 'bin', 'node');
    const version = require('node:child_process').execFileSync(node, ['--version'], { encoding: 'utf8' }).trim().slice(1);
    for (const mode of line.modes) {
      runs.push({ line, mode, version, result: await runBattery(node, line.flags ?? [], mode === 'on') });
    }
  }
}, 600000);

describe.each(LINES.flatMap((line) => line.modes.map((mode) => [line.key, mode])))('Node %s, hooks %s', (key, mode) => {
  const run = () => runs.find((r) => r.line.key === key && r.mode === mode);

  test('the battery ran to its end in the mode asked for, every checkpoint read', () => {
    const { result } = run();
    expect(result.code).toBe(0);
    expect(result.checkpoints.length).toBeGreaterThanOrEqual(24);
    for (const { cp, code, stderr } of result.checkpoints) {
      expect({ name: cp.name, code, stderr }).toEqual({ name: cp.name, code: 0, stderr: '' });
      expect({ name: cp.name, hooks: cp.hooks }).toEqual({ name: cp.name, hooks: mode === 'on' });
    }
  });

  test('at every checkpoint each reader sees exactly its labels where it sees any, and none elsewhere', () => {
    const { line, result } = run();
    const want = expectedFor(line, mode);
    for (const { cp, row } of result.checkpoints) {
      // The reader's own view is the truth the others are held to.
      expect({ name: cp.name, labels: row.labels }).toEqual({ name: cp.name, labels: cp.expect });
      for (const name of READERS) {
        const sees = want[name].answer === 'sees' ? cp.expect : null;
        const got = row.readers[name];
        expect({ checkpoint: cp.name, reader: name, labels: got.labels }).toEqual({ checkpoint: cp.name, reader: name, labels: sees });
      }
    }
  });

  test('check --readers answers the same with a labelled thread and with none, and names the step that fails', () => {
    const { line, result, version } = run();
    const want = expectedFor(line, mode);
    for (const verdict of [result.labelled, result.idle]) {
      expect({ code: verdict.code, stderr: verdict.stderr }).toEqual({ code: 0, stderr: '' });
      expect(verdict.json.node).toBe(version);
      for (const name of READERS) {
        const v = verdict.json.readers.find((r) => r.name === name);
        expect({ reader: name, answer: v.answer }).toEqual({ reader: name, answer: want[name].answer });
        if (want[name].step) {
          expect({ reader: name, text: v.text }).toEqual({ reader: name, text: expect.stringMatching(want[name].step) });
          // Hooks are the way out for every reader that has one.
          expect({ reader: name, todo: v.todo }).toEqual({ reader: name, todo: expect.stringMatching(/^run with hooks on/) });
        }
      }
    }
    expect(result.labelled.json.mode.labelled).toBeGreaterThan(0);
    expect(result.idle.json.mode.labelled).toBe(0);
  });
});

test("the README's reader table is the one these runs produce", () => {
  const table = renderTable(runs.map((r) => ({ version: r.version, flags: r.line.flags ?? [], mode: r.mode, verdict: r.result.labelled.json })));
  const readmePath = path.join(root, 'README.md');
  const readme = fs.readFileSync(readmePath, 'utf8');
  if (process.env.CUSTOMLABELS_WRITE_README === '1') fs.writeFileSync(readmePath, replaceTable(readme, table));
  expect(readme.includes(README_BEGIN)).toBe(true);
  expect(replaceTable(fs.readFileSync(readmePath, 'utf8'), table)).toBe(fs.readFileSync(readmePath, 'utf8'));
});

describe('sample --as parca: where the CPU went, as the Parca agent sees it', () => {
  // Tenants spinning 1:2:3 hook-free (test/js/fixtures/tenants.js), sampled
  // as this reader sees them and as Parca's lookup sees them.
  async function sampleBoth(version) {
    const node = path.join(nodeDir(version), 'bin', 'node');
    const child = spawn(node, [path.join(root, 'test', 'js', 'fixtures', 'tenants.js')], {
      cwd: root,
      env: { ...process.env, CUSTOMLABELS_HOOKS: '0' },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    try {
      await new Promise((r) => setTimeout(r, 500));
      const labelled = (stdout) => {
        const rows = stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.tid === child.pid);
        const total = rows.reduce((n, r) => n + r.samples, 0);
        return { total, labelled: rows.filter((r) => r.value !== null).reduce((n, r) => n + r.samples, 0) / total };
      };
      const ours = await reader(['sample', String(child.pid), '--duration', '1.5s', '--by', 'tenant', '--json']);
      const parca = await reader(['sample', String(child.pid), '--duration', '1.5s', '--by', 'tenant', '--json', '--as', 'parca']);
      expect({ ours: ours.code, parca: parca.code }).toEqual({ ours: 0, parca: 0 });
      return { ours: labelled(ours.stdout), parca: labelled(parca.stdout) };
    } finally {
      child.stdin.end();
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    }
  }

  test('Node 24.10, hooks off: Parca sees the tenants as this reader does', async () => {
    const { ours, parca } = await sampleBoth('24.10.0');
    expect(ours.total).toBeGreaterThan(50);
    expect(ours.labelled).toBeGreaterThan(0.8);
    expect(parca.labelled).toBeGreaterThan(0.8);
  }, 30000);

  test('Node 24 newest, hooks off: Parca sees no tenant at all, though this reader does', async () => {
    const { ours, parca } = await sampleBoth('24');
    expect(ours.total).toBeGreaterThan(50);
    expect(ours.labelled).toBeGreaterThan(0.8);
    expect(parca.total).toBeGreaterThan(50);
    expect(parca.labelled).toBe(0);
  }, 30000);
});
