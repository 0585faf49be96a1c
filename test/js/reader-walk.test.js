'use strict';

// The reader's Node.js walk against a hostile target (test/targets/
// malformed_walks.c, built here with cc): each thread publishes the Node.js
// discovery struct (otel_thread_ctx_nodejs_v1) over a heap of its own that is
// wrong in one way, through a fake addon named customlabels.node, and no
// TLS label set pointer. inspect names where each walk ended and shows labels
// only where it reached a set; check fails on exactly the torn walks.

const { spawn, execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { root, readerPath } = require('./helpers');

const targets = path.join(root, 'test', 'targets');

// Where each shape's walk ends, and what inspect shows for it.
const SHAPES = {
  walk_good: { walk: 'found', labels: { a: '1', b: '2' } },
  gate_closed: { walk: 'gate-closed', labels: null },
  no_frame: { walk: 'no-frame', labels: null },
  detached: { walk: 'detached', labels: null },
  // 128 entries that close on themselves: more than a frame's chain ever has.
  cyclic_chain: { walk: "malformed: a bucket's chain is longer than 32 entries", labels: null, torn: true },
  set_unreadable: { walk: 'found', error: 'cannot read the label set at %set' },
  frame_smi: { walk: 'malformed: the continuation data is not an object', labels: null, torn: true },
  frame_garbage: { walk: "unreadable: the frame's table", labels: null, torn: true },
  table_unreadable: { walk: "unreadable: the table's length", labels: null, torn: true },
  counts_forwarded: { walk: "malformed: the table's counts are not small integers", labels: null, torn: true },
  counts_out_of_range: { walk: 'malformed: the element counts are out of range', labels: null, torn: true },
  buckets_huge: { walk: 'malformed: the bucket count is not a power of two up to 2^16', labels: null, torn: true },
  record_slot_misaligned: { walk: 'malformed: record_slot_offset 41', labels: null, torn: true },
  store_smi: { walk: 'malformed: the store is not an object', labels: null, torn: true },
  long_chain: { walk: "malformed: a bucket's chain is longer than 32 entries", labels: null, torn: true },
};

// What holding one thread may take: the TLS pointers (a few reads), a walk
// (at most kWalkReads = 96, src/reader/held_memory.h), the Parca agent's
// walk (its own 16-entry bound) and the set's header.
const MAX_HELD_READS = 2 * 96 + 16;

let dir;
let child;
let shapes; // name -> { tid, set }

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-walks-'));
  const dialect = process.arch === 'arm64' ? '-mtls-dialect=desc' : '-mtls-dialect=gnu2';
  const addon = path.join(dir, 'customlabels.node');
  const target = path.join(dir, 'malformed_walks');
  const cc = (args) => execFileSync('cc', args, { stdio: ['ignore', 'ignore', 'inherit'] });
  cc(['-O1', '-fPIC', '-shared', '-ftls-model=global-dynamic', dialect, '-DFAKE_ADDON_NODE', '-Wl,-z,now', '-o', addon,
    path.join(targets, 'fake_addon.c')]);
  cc(['-O1', '-pthread', '-o', target, path.join(targets, 'malformed_walks.c'), '-ldl']);
  child = spawn(target, [addon], { stdio: ['pipe', 'pipe', 'inherit'] });
  shapes = await new Promise((resolve, reject) => {
    const seen = new Map();
    const lines = readline.createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (line !== 'ready') return seen.set(JSON.parse(line).shape, JSON.parse(line));
      lines.close();
      resolve(seen);
    });
    child.once('exit', (code) => reject(new Error(`target exited with ${code}`)));
  });
}, 60000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

const reader = (args) =>
  new Promise((resolve) => {
    execFile(readerPath, args, { encoding: 'utf8', timeout: 30000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, stdout, stderr });
    });
  });

test('inspect names where each walk ended and shows labels only where it reached a set', async () => {
  expect([...shapes.keys()].sort()).toEqual(Object.keys(SHAPES).sort());
  const { code, stdout, stderr } = await reader(['inspect', String(child.pid), '--json']);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  const rows = new Map(stdout.trim().split('\n').map((l) => JSON.parse(l)).map((r) => [r.tid, r]));
  // The main thread never published: its gate is closed.
  expect(rows.get(child.pid)).toMatchObject({ labels: null, set: '0x0', via: 'tls', walk: 'gate-closed' });
  for (const [name, want] of Object.entries(SHAPES)) {
    const { tid, set } = shapes.get(name);
    const row = rows.get(tid);
    const reached = want.walk === 'found';
    const expected = {
      shape: name,
      walk: want.walk,
      via: reached ? 'node-walk' : 'tls',
      set: reached ? set : '0x0',
      walk_set: reached ? set : undefined,
      labels: want.labels,
      error: want.error && want.error.replace('%set', set),
    };
    expect({ shape: name, walk: row.walk, via: row.via, set: row.set, walk_set: row.walk_set, labels: row.labels, error: row.error })
      .toEqual(expected);
  }
});

test('a hostile thread is held for a bounded number of reads: a chain of 2^17 entries stops after 32', async () => {
  const { code, stdout } = await reader(['inspect', String(child.pid), '--json']);
  expect(code).toBe(0);
  const rows = stdout.trim().split('\n').map((l) => JSON.parse(l));
  for (const row of rows) {
    expect({ tid: row.tid, name: row.name, reads: row.held.reads <= MAX_HELD_READS }).toEqual({ tid: row.tid, name: row.name, reads: true });
  }
  const chain = rows.find((r) => r.tid === shapes.get('long_chain').tid);
  // Before the bound, this walk read 2 words per entry: 262144 reads.
  expect(chain.held.reads).toBeGreaterThan(64);
  console.log(`held per thread (reads, us): ${rows.map((r) => `${r.name} ${r.held.reads}/${r.held.us}`).join(', ')}`);
});

test('check fails on exactly the torn walks and passes the ones that end in a known state', async () => {
  const { code, stdout } = await reader(['check', String(child.pid)]);
  expect(code).toBe(1);
  for (const [name, want] of Object.entries(SHAPES)) {
    if (want.walk === 'gate-closed') continue; // counted, not listed
    const { tid } = shapes.get(name);
    const line = stdout.split('\n').find((l) => l.includes(`thread ${tid} publishes the Node.js walk`));
    expect({ name, line }).toEqual({ name, line: expect.stringMatching(new RegExp(`^  ${want.torn ? 'FAIL' : 'ok  '} .*it ends "${want.walk.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"$`)) });
  }
  expect(stdout).toMatch(/^ {2}info 14 thread\(s\) open the gate; the other 2 never published \(gate 0\)$/m);
});

describe('a crowd of hostile threads', () => {
  // 250 threads that each publish a 2^17-entry chain: one pass spends at
  // most the process's budget of walk reads, then walks no more.
  const CROWD = 250;
  let crowd;
  let crowdTids;
  beforeAll(async () => {
    crowd = spawn(path.join(dir, 'malformed_walks'), [path.join(dir, 'customlabels.node'), String(CROWD)], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise((resolve, reject) => {
      const lines = readline.createInterface({ input: crowd.stdout });
      lines.on('line', (line) => {
        if (line !== 'ready') return;
        lines.close();
        resolve();
      });
      crowd.once('exit', (code) => reject(new Error(`target exited with ${code}`)));
    });
    crowdTids = fs.readdirSync(`/proc/${crowd.pid}/task`).map(Number).filter((t) => fs.readFileSync(`/proc/${crowd.pid}/task/${t}/comm`, 'utf8').trim() === 'chain_crowd');
  }, 60000);
  afterAll(async () => {
    if (crowd && crowd.exitCode === null) {
      const exited = new Promise((r) => crowd.once('exit', r));
      crowd.kill('SIGKILL');
      await exited;
    }
  });

  test('walks stop once the budget per process is spent, and the other threads are still shown', async () => {
    expect(crowdTids).toHaveLength(CROWD);
    const started = process.hrtime.bigint();
    const { code, stdout } = await reader(['inspect', String(crowd.pid), '--json']);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    expect(code).toBe(0);
    const rows = stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((r) => crowdTids.includes(r.tid));
    expect(rows).toHaveLength(CROWD);
    const walked = rows.filter((r) => r.walk.startsWith('malformed: a bucket'));
    const skipped = rows.filter((r) => r.walk === "skipped: the reader's budget of reads is spent");
    expect(walked.length + skipped.length).toBe(CROWD);
    expect(skipped.length).toBeGreaterThan(0);
    // Every walk's reads count: 16384 in all (held_memory.h), plus a few
    // reads per thread outside the walks.
    const reads = rows.reduce((n, r) => n + r.held.reads, 0);
    expect(reads).toBeLessThanOrEqual(16384 + 16 * CROWD);
    console.log(`inspect of ${CROWD} hostile threads: ${ms.toFixed(0)} ms, ${walked.length} walked, ${skipped.length} skipped, ${reads} reads held`);
  });
});
