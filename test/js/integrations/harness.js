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

// What the reader sees of one stopped thread, read once: a parked thread
// runs no JS (test/js/fixtures/checkpoint.js), so nothing moves under the
// reader and there is nothing to read again.
function inspect(pid, tid) {
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

// Releases a thread parked at a checkpoint: one byte into its FIFO,
// without blocking should the fixture be gone (ENXIO: no reader left).
function release(fifo) {
  let fd;
  try {
    fd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    fs.writeSync(fd, 'x');
  } catch (err) {
    if (err.code !== 'ENXIO' && err.code !== 'ENOENT') throw err;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

// Starts `fixture` with `args`; `onEvent(event, child)` gets announcements
// (e.g. {event: 'listening', port}). Resolves with {checkpoints, code,
// stderr} once the fixture exits; each checkpoint holds what the reader saw,
// in the process `processOf(tid, child)` names (the fixture's by default;
// BullMQ's sandboxes are processes of their own). The fixture runs in a
// process group of its own, so a timeout kills what it started too.
// The fixture runs under this Node.js, or the one CUSTOMLABELS_FIXTURE_NODE
// names (test/versions runs releases that need an older line under it).
function runCheckpoints(fixture, { args = [], env = {}, node = process.env.CUSTOMLABELS_FIXTURE_NODE || process.execPath, onEvent = () => {}, processOf = (tid, child) => child.pid, timeoutMs = 120000 } = {}) {
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
        release(msg.release);
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

// Runs a server fixture (it announces {event: 'listening', port, protocol?:
// 'https' or 'http2'} and exits
// after argv's last argument of responses) under `requests` from a real HTTP
// client; resolves with the checkpoint run and the responses.
// `env`: more environment for the fixture (e.g. REGISTERED below);
// `processOf`: as runCheckpoints'.
async function serveUnderLoad(fixture, args, requests, concurrency = 6, env = {}, processOf = undefined) {
  const { load } = require('./http-client');
  let loading;
  const events = [];
  const run = await runCheckpoints(fixture, {
    args: [...args, String(requests.length)],
    env,
    ...(processOf === undefined ? {} : { processOf }),
    onEvent: (msg) => {
      events.push(msg);
      if (msg.event === 'listening') loading = load(msg.port, requests, concurrency, { protocol: msg.protocol });
    },
  });
  return { run: { ...run, events }, responses: await loading };
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

// The reader read each checkpoint's own thread, once, and saw exactly its
// labels (a mismatch shows how the walk ended).
function expectEveryCheckpointSeen(checkpoints) {
  for (const cp of checkpoints) {
    expect({ name: cp.name, code: cp.seen.code, tid: cp.seen.row && cp.seen.row.tid }).toEqual({ name: cp.name, code: 0, tid: cp.tid });
    const { row } = cp.seen;
    const seen = { name: cp.name, labels: row.labels };
    if (!isDeepStrictEqual(row.labels, cp.expect)) Object.assign(seen, { walk: row.walk, via: row.via });
    expect(seen).toEqual({ name: cp.name, labels: cp.expect });
    expectSource(cp, cp.expect !== null);
  }
}

// A fixture's environment for customlabels/register instead of its own
// lines (the fixtures leave their integration out under
// CUSTOMLABELS_FIXTURE_WIRING=register), with the x-tenant header as the
// tenant label, as the fixtures' own options give it.
const REGISTERED = Object.freeze({
  CUSTOMLABELS_FIXTURE_WIRING: 'register',
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require customlabels/register`.trim(),
  CUSTOMLABELS_HEADERS: 'x-tenant=tenant',
});

// A package the repository installs under an alias (express4, fastify4)
// copied to build/test-aliases/<alias>/node_modules/<name>, so that an app
// loading it by that path loads it as its real name, as customlabels/register
// sees a package in an app (its dependencies still resolve from the
// repository's node_modules). Returns the copy's folder.
function asPackage(alias, name) {
  const dir = path.join(root, 'build', 'test-aliases', alias, 'node_modules', name);
  const source = path.join(root, 'node_modules', alias);
  const stamp = path.join(dir, '.customlabels-copied-from');
  const version = fs.readFileSync(path.join(source, 'package.json'), 'utf8');
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== version) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.cpSync(source, dir, { recursive: true, dereference: true });
    fs.writeFileSync(stamp, version);
  }
  return dir;
}

module.exports = { REGISTERED, asPackage, runCheckpoints, serveUnderLoad, expectEveryCheckpointSeen, expectSource, inspect, readerPath };
