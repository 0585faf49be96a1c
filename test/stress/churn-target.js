'use strict';

// The worker-churn target: starts --workers worker threads (churn-worker.js),
// --alive at a time, each labelling its work; most are terminated while inside
// labelled scopes, some exit by themselves. The main thread labels a periodic
// tick of its own. Every --checkpoint workers it lets the running ones finish
// and samples its memory with none alive.
//   node test/stress/churn-target.js --workers 300 --alive 4 --checkpoint 30
//        [--mode labels|none] [--gc]
// Writes JSON lines on stdout: {ready}, {checkpoint}, {done} (with the tally
// and each worker's tid and lifetime); exits when stdin ends.

const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { parseOptions } = require('./report');
const { sampleMemory } = require('./memory');

const options = parseOptions(process.argv.slice(2), {
  workers: 300,
  alive: 4,
  checkpoint: 30,
  mode: 'labels',
  gc: false,
});
const api = options.mode === 'labels' ? require('../..') : null;
const run = api ? api.withLabels : (labels, fn) => fn();
const emit = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);

// Fates in a fixed rotation: 6 of 10 terminated inside their scopes, 1 while
// still loading, 2 return, 1 calls process.exit() inside a scope.
const FATES = ['terminate', 'exit', 'terminate', 'terminate-early', 'terminate', 'process-exit', 'terminate', 'exit', 'terminate', 'terminate'];
const inside = new Int32Array(new SharedArrayBuffer(4 * options.workers));

// When each worker thread ran, by its tid (null if it never said).
const lives = [];
const tally = {
  started: 0,
  exited: 0,
  terminated: 0,
  terminatedInside: 0,
  terminatedEarly: 0,
  naturalExits: 0,
  processExits: 0,
  unexpectedExit: [],
  errors: [],
  checks: 0,
  mismatches: 0,
  firstMismatch: null,
};

const spin = (ms) => {
  const end = Date.now() + ms;
  while (Date.now() < end);
};
// The main thread's own labelled work, seen by the reader on tid == pid.
const tick = setInterval(() => run({ thread: 'main', phase: 'tick' }, () => spin(2)), 25);

function startWorker(id) {
  const fate = FATES[id % FATES.length];
  const lifeMs = 40 + ((id * 37) % 160);
  tally.started += 1;
  const worker = new Worker(path.join(__dirname, 'churn-worker.js'), {
    workerData: { id, fate, lifeMs, mode: options.mode, inside },
  });
  let last = { checks: 0, mismatches: 0, firstMismatch: null };
  const life = { id, fate, tid: null, started: Date.now(), exited: null };
  lives.push(life);
  worker.on('message', (msg) => {
    if (msg.started) life.tid = msg.tid;
    if (msg.started && fate === 'terminate') {
      // Somewhere in its loop of labelled scopes.
      setTimeout(() => {
        if (Atomics.load(inside, id) === 1) tally.terminatedInside += 1;
        tally.terminated += 1;
        worker.terminate();
      }, 5 + ((id * 13) % 120));
    } else if (!msg.started) {
      last = msg;
    }
  });
  if (fate === 'terminate-early') {
    worker.once('online', () => {
      tally.terminatedEarly += 1;
      worker.terminate();
    });
  }
  worker.on('error', (err) => tally.errors.push(`worker ${id}: ${err && err.stack}`));
  return new Promise((resolve) => {
    worker.on('exit', (code) => {
      life.exited = Date.now();
      tally.exited += 1;
      tally.checks += last.checks;
      tally.mismatches += last.mismatches;
      if (tally.firstMismatch === null && last.firstMismatch) tally.firstMismatch = { id, ...last.firstMismatch };
      if (fate === 'exit') tally.naturalExits += 1;
      if (fate === 'process-exit') tally.processExits += 1;
      const expected = fate.startsWith('terminate') ? 1 : 0;
      if (code !== expected) tally.unexpectedExit.push(`worker ${id} (${fate}) exited with ${code}`);
      resolve();
    });
  });
}

// Runs workers [from, to) with at most options.alive at a time.
async function churn(from, to) {
  let next = from;
  const lane = async () => {
    while (next < to) await startWorker(next++);
  };
  await Promise.all(Array.from({ length: options.alive }, lane));
}

async function main() {
  emit({ ready: true, pid: process.pid, version: process.version });
  for (let from = 0; from < options.workers; from += options.checkpoint) {
    const to = Math.min(from + options.checkpoint, options.workers);
    await churn(from, to);
    emit({ checkpoint: to, memory: await sampleMemory(options.gc) });
  }
  clearInterval(tick);
  emit({ done: true, tally, lives });
  // Nothing else is left to run: the process ends (code 0, stdout
  // flushed) once stdin does.
  process.stdin.resume();
}

main();
