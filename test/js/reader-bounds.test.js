'use strict';

// The reader against a hostile target (test/targets/malformed_sets.c, built
// here with cc): each thread publishes a label set malformed in its own way
// through a fake addon named customlabels.node. Whatever a target publishes,
// inspect and sample finish in seconds, stay under 100 MB, print exactly what
// was read, cut and wrong per thread, and never leave the target stopped.

const { spawn, execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { root, readerPath, inspectBody } = require('./helpers');

const targets = path.join(root, 'test', 'targets');
const MiB = 1024 * 1024;
const WALL_LIMIT_MS = 10000; // they take ~0.1 s; the margin is for a loaded machine
const RSS_LIMIT_KB = 100 * 1024;

let dir;
let bin; // { addon, target, measure }

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-bounds-'));
  const dialect = process.arch === 'arm64' ? '-mtls-dialect=desc' : '-mtls-dialect=gnu2';
  bin = {
    addon: path.join(dir, 'customlabels.node'),
    target: path.join(dir, 'malformed_sets'),
    measure: path.join(dir, 'measure'),
  };
  const cc = (args) => execFileSync('cc', args, { stdio: ['ignore', 'ignore', 'inherit'] });
  cc(['-O1', '-fPIC', '-shared', '-ftls-model=global-dynamic', dialect, '-Wl,-z,now', '-o', bin.addon,
    path.join(targets, 'fake_addon.c')]);
  cc(['-O1', '-pthread', '-o', bin.target, path.join(targets, 'malformed_sets.c'), '-ldl']);
  cc(['-O1', '-o', bin.measure, path.join(targets, 'measure.c')]);
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// Starts the target; resolves with { child, shapes: Map(name -> line) } once ready.
function startTarget(args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin.target, [bin.addon, ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    child.once('error', reject);
    const shapes = new Map();
    const lines = readline.createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (line === 'ready') {
        lines.close();
        resolve({ child, shapes });
        return;
      }
      const shape = JSON.parse(line);
      shapes.set(shape.shape, shape);
    });
    child.once('exit', (code) => reject(new Error(`target exited with ${code}`)));
  });
}

const stopTarget = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

// Runs the reader under `measure`: its output plus peak RSS and wall time.
function runMeasured(args) {
  const out = path.join(dir, `measure-${process.hrtime.bigint()}.json`);
  return new Promise((resolve) => {
    execFile(bin.measure, [out, readerPath, ...args], { encoding: 'utf8', maxBuffer: 256 * MiB, timeout: 120000 },
      (err, stdout, stderr) => {
        const cost = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : { exit: null };
        resolve({ ...cost, stdout, stderr, err });
      });
  });
}

// Threads of `pid` in a stopped state ('t' traced or 'T'), by tid.
function stoppedThreads(pid) {
  return fs
    .readdirSync(`/proc/${pid}/task`)
    .map((tid) => [tid, fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1][0]])
    .filter(([, state]) => state === 't' || state === 'T');
}

// What the reader must print for each shape, as data: labels (or null for no
// set), truncation, problems, Parca notes, or an error. Numbers are BigInt.
const hex = (n) => `0x${BigInt(n).toString(16)}`;
const U64_MAX = 2n ** 64n - 1n;
function expectations(shapes) {
  const s = (name) => shapes.get(name);
  const many = {};
  for (let i = 0; i < 1024; i++) many[i.toString(16).padStart(7, '0')] = 'm';
  const budget = {};
  for (let i = 0; i < 32; i++) {
    budget[`s${String(i).padStart(2, '0')}`] = String(i % 10).repeat(i === 31 ? 32672 : 32768);
  }
  const parcaValues = (keys, length) => keys.map((k) => `value of "${k}" is cut to 53 bytes (${length})`);
  const unreadableFrom = (name, count) => [
    `count ${count} cannot be right: that many labels of 32 bytes do not fit above ${s(name).storage}`,
    `label storage is unreadable from label 2 at ${hex(BigInt(s(name).storage) + 64n)}; 2 of ${count} labels read`,
  ];
  return {
    good: { labels: { a: '1', b: '2' } },
    none: { labels: null },
    'count-2^63': {
      labels: { c1: 'x', c2: 'y' },
      parca: ['only the first 10 of 9223372036854775808 labels are read'],
      truncated: { labels: { count: 2n ** 63n, kept: 2n } },
      problems: unreadableFrom('count-2^63', 2n ** 63n),
    },
    'count-overflow': {
      labels: { o1: 'x', o2: 'y' },
      parca: [`only the first 10 of ${2n ** 59n + 2n} labels are read`],
      truncated: { labels: { count: 2n ** 59n + 2n, kept: 2n } },
      problems: unreadableFrom('count-overflow', 2n ** 59n + 2n),
    },
    'bad-storage': { error: `cannot read label storage at ${s('bad-storage').storage} (3 labels)` },
    'null-storage': { error: 'label storage is NULL but count is 2' },
    'bad-set': { error: 'cannot read the label set at 0xdead000000000000' },
    'misaligned-set': {
      labels: { m: '1' },
      problems: [`set pointer ${s('misaligned-set').set} is misaligned (custom_labels_labelset_t is 8-byte aligned); read anyway`],
    },
    'len-max': {
      labels: { v: 'v'.repeat(65536), ['k'.repeat(1024)]: 'x' },
      parca: [
        `value of "v" is cut to 53 bytes (${U64_MAX})`,
        `key "${'k'.repeat(25)}..." is cut to 25 bytes (${U64_MAX})`,
      ],
      truncated: {
        keys: [{ index: 1n, key: 'k'.repeat(1024), length: U64_MAX, kept: 1024n, limit: '--max-key-bytes' }],
        values: [{ index: 0n, key: 'v', length: U64_MAX, kept: 65536n, limit: '--max-value-bytes' }],
      },
    },
    'value-256m': {
      labels: { big: 'V'.repeat(65536) },
      parca: parcaValues(['big'], 268435456),
      truncated: { values: [{ index: 0n, key: 'big', length: 268435456n, kept: 65536n, limit: '--max-value-bytes' }] },
    },
    'key-1g': {
      labels: { ['K'.repeat(1024)]: '1g' },
      parca: [`key "${'K'.repeat(25)}..." is cut to 25 bytes (1073741824)`],
      truncated: { keys: [{ index: 0n, key: 'K'.repeat(1024), length: 1073741824n, kept: 1024n, limit: '--max-key-bytes' }] },
    },
    'many-labels': {
      labels: many,
      parca: ['only the first 10 of 2097152 labels are read'],
      truncated: { labels: { count: 2097152n, kept: 1024n, limit: '--max-labels' } },
    },
    'null-values': {
      labels: { a: 'second', b: '2' },
      problems: ['label 0 (key "a"): value.buf is NULL, which the ABI forbids; ignored'],
    },
    'null-keys': { labels: { c: '3' } },
    duplicates: { labels: { d: 'first', e: '' } },
    'bad-value': {
      labels: { w: 'ok' },
      problems: [`label 0 (key "u"): cannot read its value (4 bytes at ${s('bad-value').value}); ignored`],
    },
    'set-budget': {
      labels: budget,
      parca: [
        'only the first 10 of 40 labels are read',
        ...parcaValues(Array.from({ length: 10 }, (_, i) => `s0${i}`), 32768),
      ],
      truncated: {
        labels: { count: 40n, kept: 32n, limit: '--max-set-bytes' },
        values: [{ index: 31n, key: 's31', length: 32768n, kept: 32672n, limit: '--max-set-bytes' }],
      },
    },
    'storage-wraps': { error: 'label storage at 0xfffffffffffffff0 with 4 labels runs past the end of the address space' },
  };
}

// The JSON line the reader must print for a thread (numbers as JSON text).
function jsonLine(tid, name, set, e) {
  const big = (v) => (typeof v === 'bigint' ? `@@${v}@@` : v);
  const o = { tid, name };
  if (!e.error) o.labels = e.labels;
  o.set = e.labels === null ? '0x0' : set;
  if (e.parca) o.parca = e.parca;
  if (e.truncated) o.truncated = e.truncated;
  if (e.problems) o.problems = e.problems;
  if (e.error) o.error = e.error;
  return JSON.stringify(o, (k, v) => big(v)).replace(/"@@(\d+)@@"/g, '$1');
}

// The text block the reader must print for a thread (an independent
// rendering of the documented format).
function textBlock(tid, name, e) {
  const pad = (v, n) => String(v).padEnd(n);
  const lead = `  ${pad(tid, 8)} ${pad(name, 16)} `;
  const indent = ' '.repeat(lead.length);
  const labels = () => (e.labels === null || Object.keys(e.labels).length === 0
    ? '(none)'
    : Object.entries(e.labels).map(([k, v]) => `${k}=${v}`).join(' '));
  const lines = [lead + (e.error ? `! error: ${e.error}` : labels())];
  const t = e.truncated || {};
  const quoted = (key, cut) => `"${key.slice(0, 32)}${cut || key.length > 32 ? '...' : ''}"`;
  if (t.labels) {
    lines.push(`${indent}! truncated: ${t.labels.kept} of ${t.labels.count} labels read` +
      (t.labels.limit ? ` (${t.labels.limit})` : ' (the rest is unreadable)'));
  }
  for (const c of t.keys || []) {
    lines.push(`${indent}! truncated: key of label ${c.index} (${quoted(c.key, true)}): ${c.kept} of ${c.length} bytes kept (${c.limit})`);
  }
  for (const c of t.values || []) {
    lines.push(`${indent}! truncated: value of ${quoted(c.key, false)} (label ${c.index}): ${c.kept} of ${c.length} bytes kept (${c.limit})`);
  }
  for (const p of e.problems || []) lines.push(`${indent}! problem: ${p}`);
  for (const n of e.parca || []) lines.push(`${indent}! Parca agent: ${n}`);
  return `${lines.join('\n')}\n`;
}

describe('a target that publishes every malformed shape', () => {
  let target;
  let expected;
  beforeAll(async () => {
    target = await startTarget();
    expected = expectations(target.shapes);
    // Every shape in the table is published by the target, and vice versa.
    expect([...target.shapes.keys()].sort()).toEqual([...Object.keys(expected), 'rewriting'].sort());
  }, 60000);
  afterAll(() => target && stopTarget(target.child));

  const threadsOf = (pid) => fs.readdirSync(`/proc/${pid}/task`).map(Number).sort((a, b) => a - b);

  test('inspect --json: bounded, and exactly what each thread published', async () => {
    const { child, shapes } = target;
    const r = await runMeasured(['inspect', String(child.pid), '--json']);
    expect(r.stderr).toBe('');
    expect(r.exit).toBe(0);
    expect(r.wall_ms).toBeLessThan(WALL_LIMIT_MS);
    expect(r.maxrss_kb).toBeLessThan(RSS_LIMIT_KB);
    const lines = inspectBody(r.stdout).trim().split('\n');
    const byTid = new Map(lines.map((l) => [JSON.parse(l).tid, l]));
    // Every thread is there, bad ones included.
    expect([...byTid.keys()].sort((a, b) => a - b)).toEqual(threadsOf(child.pid));
    for (const [name, e] of Object.entries(expected)) {
      const { tid, set } = shapes.get(name);
      expect({ shape: name, line: byTid.get(tid) }).toEqual({ shape: name, line: jsonLine(tid, name, set, e) });
    }
    // The set being rewritten while read gives a well-formed line of its own.
    const rewriting = JSON.parse(byTid.get(shapes.get('rewriting').tid));
    expect(rewriting.name).toBe('rewriting');
    expect('labels' in rewriting || 'error' in rewriting).toBe(true);
    expect(byTid.get(child.pid)).toBe(`{"tid":${child.pid},"name":"malformed_sets","labels":null,"set":"0x0"}`);
    expect(stoppedThreads(child.pid)).toEqual([]);
  }, 60000);

  test('inspect (text): the same, in the documented lines', async () => {
    const { child, shapes } = target;
    const r = await runMeasured(['inspect', String(child.pid)]);
    expect(r.stderr).toBe('');
    expect(r.exit).toBe(0);
    expect(r.wall_ms).toBeLessThan(WALL_LIMIT_MS);
    expect(r.maxrss_kb).toBeLessThan(RSS_LIMIT_KB);
    expect(r.stdout).toMatch(new RegExp(`^process ${child.pid}: ${bin.addon} \\(ABI v1, static TLS, thread pointer -\\d+\\)\\n`));
    for (const [name, e] of Object.entries(expected)) {
      const block = textBlock(shapes.get(name).tid, name, e);
      expect({ shape: name, found: r.stdout.includes(block) }).toEqual({ shape: name, found: true });
    }
    // One block per thread: a line that starts with its tid.
    const tids = r.stdout.split('\n').filter((l) => /^ {2}\d/.test(l)).map((l) => Number(l.trim().split(/\s+/)[0]));
    expect(tids).toEqual(threadsOf(child.pid));
    expect(stoppedThreads(child.pid)).toEqual([]);
  }, 60000);

  test('the limits are flags: raised, the reader keeps exactly that much more', async () => {
    const { child, shapes } = target;
    const read = async (shape, ...flags) => {
      const r = await runMeasured(['inspect', String(child.pid), '--tid', String(shapes.get(shape).tid), '--json', ...flags]);
      expect(r.exit).toBe(0);
      return { ...r, thread: JSON.parse(r.stdout) };
    };
    const big = await read('value-256m', '--max-value-bytes', '1M', '--max-set-bytes', '2M');
    expect(big.thread.labels.big).toBe('V'.repeat(MiB));
    expect(big.thread.truncated.values[0]).toEqual({ index: 0, key: 'big', length: 268435456, kept: MiB, limit: '--max-value-bytes' });
    const many = await read('many-labels', '--max-labels', '4096');
    expect(Object.keys(many.thread.labels)).toHaveLength(4096);
    expect(many.thread.truncated.labels).toEqual({ count: 2097152, kept: 4096, limit: '--max-labels' });
    const all = await read('set-budget', '--max-set-bytes', '2M');
    expect(Object.keys(all.thread.labels)).toHaveLength(40);
    expect(all.thread.truncated).toBeUndefined();
    const lower = await read('good', '--max-labels', '1', '--max-value-bytes', '0');
    expect(lower.thread.labels).toEqual({ a: '' });
    expect(lower.thread.truncated).toEqual({
      labels: { count: 2, kept: 1, limit: '--max-labels' },
      values: [{ index: 0, key: 'a', length: 1, kept: 0, limit: '--max-value-bytes' }],
    });
    expect(stoppedThreads(child.pid)).toEqual([]);
  }, 60000);

  test('exit 7 only when no thread could be read; the error is still printed', async () => {
    const { child, shapes } = target;
    const r = await runMeasured(['inspect', String(child.pid), '--tid', String(shapes.get('bad-set').tid), '--json']);
    expect(r.exit).toBe(7);
    expect(r.stderr).toBe("customlabels: no thread's label set could be read\n");
    expect(JSON.parse(r.stdout).error).toBe('cannot read the label set at 0xdead000000000000');
  }, 60000);

  test('options of another command, and bad limits, are usage errors', async () => {
    const pid = String(target.child.pid);
    const cases = [
      [['inspect', pid, '--hz', '99'], '--hz is an option of sample, not of inspect'],
      [['inspect', pid, '--duration', '1s'], '--duration is an option of sample, not of inspect'],
      [['check', pid, '--json'], 'check --json goes with --readers'],
      [['check', pid, '--as', 'parca'], '--as is an option of inspect and sample, not of check'],
      [['inspect', pid, '--readers'], '--readers is an option of check, not of inspect'],
      [['inspect', pid, '--as', 'nobody'], '--as takes parca or abi-v1 (what the OpenTelemetry readers see is the otel part)'],
      [['inspect', pid, '--max-labels', '0'], '--max-labels takes 1 to 1048576'],
      [['sample', pid, '--max-value-bytes', '2G'], '--max-value-bytes takes 0 to 1G bytes (K, M, G: powers of 1024)'],
      [['inspect', pid, '--max-key-bytes', 'lots'], '--max-key-bytes takes 1 to 1G bytes (K, M, G: powers of 1024)'],
      [['inspect', pid, '--reader-limits', 'nope'], '--reader-limits takes one of: parca, parca-0.42'],
    ];
    for (const [args, message] of cases) {
      const r = await runMeasured(args);
      expect({ args, exit: r.exit, first: r.stderr.split('\n')[0] }).toEqual({ args, exit: 2, first: `customlabels: ${message}` });
      expect(r.stdout).toBe('');
    }
  }, 60000);
});

describe('sampling threads that spin with malformed sets', () => {
  test('sample --json: bounded, each thread counted with what it published', async () => {
    const target = await startTarget(['--spin']);
    try {
      const expected = expectations(target.shapes);
      const r = await runMeasured(['sample', String(target.child.pid), '--hz', '50', '--duration', '2s', '--json']);
      expect(r.stderr).toBe('');
      expect(r.exit).toBe(0);
      expect(r.wall_ms).toBeLessThan(2000 + WALL_LIMIT_MS);
      expect(r.maxrss_kb).toBeLessThan(RSS_LIMIT_KB);
      const rows = r.stdout.trim().split('\n');
      for (const [name, e] of Object.entries(expected)) {
        const { tid, set } = target.shapes.get(name);
        const mine = rows.filter((l) => JSON.parse(l).tid === tid);
        // Sampled (it spins), and always seen the same way: one row.
        expect({ name, rows: mine.length }).toEqual({ name, rows: 1 });
        const row = JSON.parse(mine[0]);
        expect(row.samples).toBe(row.thread_samples);
        expect(row.samples).toBeGreaterThan(0);
        // The row says what inspect says (without the inspect-only notes).
        const want = JSON.parse(jsonLine(tid, name, set, { ...e, parca: undefined, problems: undefined }));
        const got = { tid: row.tid, name: row.name };
        if (row.error) got.error = row.error;
        else got.labels = row.labels;
        if (row.truncated) got.truncated = row.truncated;
        delete want.set;
        expect({ name, row: got }).toEqual({ name, row: want });
      }
      // The rewritten set: sampled, every row well-formed and bounded.
      const rewriting = rows.map((l) => JSON.parse(l)).filter((row) => row.tid === target.shapes.get('rewriting').tid);
      expect(rewriting.length).toBeGreaterThan(0);
      for (const row of rewriting) expect('labels' in row || 'error' in row || row.other === true).toBe(true);
      expect(stoppedThreads(target.child.pid)).toEqual([]);
    } finally {
      await stopTarget(target.child);
    }
  }, 60000);

  test('sample (text) of the worst shapes: bounded, truncation shown under its row', async () => {
    const target = await startTarget(['--spin', 'value-256m', 'key-1g', 'many-labels', 'set-budget', 'rewriting']);
    try {
      const r = await runMeasured(['sample', String(target.child.pid), '--hz', '50', '--duration', '1s']);
      expect(r.stderr).toBe('');
      expect(r.exit).toBe(0);
      expect(r.wall_ms).toBeLessThan(1000 + WALL_LIMIT_MS);
      expect(r.maxrss_kb).toBeLessThan(RSS_LIMIT_KB);
      const pad = ' '.repeat(20);
      const { tid } = target.shapes.get('value-256m');
      expect(r.stdout).toMatch(new RegExp(`\\nthread ${tid} \\(value-256m\\): (\\d+) samples\\n    share  samples  labels\\n` +
        `   100\\.0% +\\d+  big=V{65536}\\n${pad}! truncated: value of "big" \\(label 0\\): 65536 of 268435456 bytes kept \\(--max-value-bytes\\)\\n`));
      expect(r.stdout).toContain(`${pad}! truncated: 1024 of 2097152 labels read (--max-labels)\n`);
      expect(r.stdout).toContain(`${pad}! truncated: 32 of 40 labels read (--max-set-bytes)\n`);
      expect(r.stdout).toContain(`${pad}! truncated: key of label 0 ("${'K'.repeat(32)}..."): 1024 of 1073741824 bytes kept (--max-key-bytes)\n`);
      expect(stoppedThreads(target.child.pid)).toEqual([]);
    } finally {
      await stopTarget(target.child);
    }
  }, 60000);
});
