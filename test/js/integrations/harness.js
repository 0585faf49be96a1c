'use strict';

// Runs a fixture that stops at checkpoints (test/js/fixtures/checkpoint.js)
// and reads each stopped thread with the customlabels reader from outside,
// then releases that thread alone.

const { spawn, execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { isDeepStrictEqual } = require('node:util');
const { root } = require('../helpers');

const readerPath = path.join(root, 'build', 'Release', 'customlabels-reader');

function inspectOnce(pid, tid) {
  return new Promise((resolve) => {
    execFile(readerPath, ['inspect', String(pid), '--tid', String(tid), '--json'], { encoding: 'utf8', timeout: 30000 }, (err, stdout, stderr) => {
      // The thread's row (a process_context line may come first).
      const row = stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((r) => r.tid !== undefined);
      resolve({ code: err ? err.code ?? -1 : 0, row: row ?? null, stderr });
    });
  });
}

// A walk that finds the heap malformed at a checkpoint has, as far as we
// know, caught V8 between states: the waiting thread polls (fs.existsSync),
// which can start a garbage collection that is moving the frame's objects
// when the reader stops the thread. A profiler's sample there rightly gets
// no labels; the checkpoint is read again (up to MAX_REREADS times, the
// statuses kept in `rereads` and printed) so that what it checks is the
// published context. A wrong set, or a read that failed, is never read
// again.
const MAX_REREADS = 3;
const caughtBetweenStates = (row) => row !== null && typeof row.walk === 'string' && row.walk.startsWith('malformed');

async function inspect(pid, tid) {
  const rereads = [];
  let seen = await inspectOnce(pid, tid);
  while (caughtBetweenStates(seen.row) && rereads.length < MAX_REREADS) {
    rereads.push(seen.row.walk);
    await new Promise((r) => setTimeout(r, 5));
    seen = await inspectOnce(pid, tid);
  }
  if (rereads.length > 0) console.log(`customlabels harness: thread ${tid} read again after ${JSON.stringify(rereads)}`);
  return { ...seen, rereads };
}

// Starts `fixture` with `args`; `onEvent(event, child)` gets announcements
// (e.g. {event: 'listening', port}). Resolves with {checkpoints, code,
// stderr} once the fixture exits; each checkpoint holds what the reader saw,
// in the process `processOf(tid, child)` names (the fixture's by default;
// BullMQ's sandboxes are processes of their own). The fixture runs in a
// process group of its own, so a timeout kills what it started too.
function runCheckpoints(fixture, { args = [], env = {}, node = process.execPath, onEvent = () => {}, processOf = (tid, child) => child.pid, timeoutMs = 120000 } = {}) {
  return new Promise((resolve, reject) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-checkpoints-'));
    const child = spawn(node, [fixture, ...args], {
      detached: true,
      cwd: root,
      env: { ...process.env, ...env, CUSTOMLABELS_CHECKPOINT_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const checkpoints = [];
    const timer = setTimeout(() => {
      process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`fixture timed out after ${checkpoints.length} checkpoints\n${stderr}`));
    }, timeoutMs);
    const lines = readline.createInterface({ input: child.stdout });
    let queue = Promise.resolve();
    lines.on('line', (line) => {
      const msg = JSON.parse(line);
      if (msg.event !== undefined) {
        onEvent(msg, child);
        return;
      }
      queue = queue.then(async () => {
        const pid = processOf(msg.tid, child);
        const seen = await inspect(pid, msg.tid);
        checkpoints.push({ ...msg, pid, seen });
        fs.writeFileSync(msg.release, '');
      });
    });
    child.on('error', reject);
    child.on('close', async (code, signal) => {
      clearTimeout(timer);
      await queue;
      fs.rmSync(dir, { recursive: true, force: true });
      resolve({ checkpoints, code, signal, stderr });
    });
  });
}

// Runs a server fixture (it announces {event: 'listening', port} and exits
// after argv's last argument of responses) under `requests` from a real HTTP
// client; resolves with the checkpoint run and the responses.
async function serveUnderLoad(fixture, args, requests, concurrency = 6) {
  const { load } = require('./http-client');
  let loading;
  const run = await runCheckpoints(fixture, {
    args: [...args, String(requests.length)],
    onEvent: (msg) => {
      if (msg.event === 'listening') loading = load(msg.port, requests, concurrency);
    },
  });
  return { run, responses: await loading };
}

// Where the reader found a checkpoint's labels (`labelled`: it has some): the
// TLS pointer the hooks switch, or, hooks off, the walk through V8's
// continuation data; where both exist they lead to the same set.
function expectSource(cp, labelled) {
  const { row } = cp.seen;
  const via = labelled && !cp.hooks ? 'node-walk' : 'tls';
  expect({ name: cp.name, via: row.via ?? 'tls' }).toEqual({ name: cp.name, via });
  if (cp.walk && labelled) {
    expect({ name: cp.name, walk: row.walk, set: row.walk_set }).toEqual({ name: cp.name, walk: 'found', set: row.set });
  }
  // Nothing published for the walk (no AsyncContextFrame): the gate reads zero.
  if (!cp.walk) expect({ name: cp.name, walk: row.walk }).toEqual({ name: cp.name, walk: 'gate-closed' });
}

// The reader read each checkpoint's own thread and saw exactly its labels
// (a mismatch shows how the walk ended, and any reads again). Reads again
// stay rare (one per run, or one per 100 checkpoints): a walk that often
// finds the heap malformed is a problem of its own.
function expectEveryCheckpointSeen(checkpoints) {
  for (const cp of checkpoints) {
    expect({ name: cp.name, code: cp.seen.code, tid: cp.seen.row && cp.seen.row.tid }).toEqual({ name: cp.name, code: 0, tid: cp.tid });
    const { row, rereads = [] } = cp.seen;
    const seen = { name: cp.name, labels: row.labels };
    if (!isDeepStrictEqual(row.labels, cp.expect)) Object.assign(seen, { walk: row.walk, via: row.via, rereads });
    expect(seen).toEqual({ name: cp.name, labels: cp.expect });
    expectSource(cp, cp.expect !== null);
  }
  const reread = checkpoints.filter((cp) => (cp.seen.rereads ?? []).length > 0);
  const rare = reread.length <= Math.max(1, Math.floor(checkpoints.length / 100));
  expect({ rereads: rare ? 'rare' : reread.map((cp) => ({ name: cp.name, statuses: cp.seen.rereads })) }).toEqual({ rereads: 'rare' });
}

module.exports = { runCheckpoints, serveUnderLoad, expectEveryCheckpointSeen, expectSource, inspect, readerPath };
