'use strict';

// One worker of the churn target: labels its work in sync and async scopes
// (nested, across awaits and timers), checks through the ABI that it sees
// its own labels, and ends as its fate says:
//   terminate       loops until the main thread terminates it
//   terminate-early as terminate, but the main thread terminates it on
//                   'online', usually while it is still loading
//   exit            returns from its work after lifeMs (the thread exits normally)
//   process-exit    calls process.exit(0) from inside a labelled scope after lifeMs
// While a sync labelled scope runs, inside[id] is 1, so
// the main thread can tell whether terminate() hit a published label set.

const fs = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const { setImmediate: immediate, setTimeout: sleep } = require('node:timers/promises');

const { id, fate, lifeMs, mode, inside } = workerData;
const api = mode === 'labels' ? require('../..') : null;
const run = api ? api.withLabels : (labels, fn) => fn();
const worker = String(id);

let checks = 0;
let mismatches = 0;
let firstMismatch = null;

function check(expected) {
  if (api === null) return;
  checks += 1;
  const seen = api.currentLabels();
  const keys = Object.keys(seen);
  if (keys.length === Object.keys(expected).length && keys.every((k) => seen[k] === expected[k])) return;
  mismatches += 1;
  if (firstMismatch === null) firstMismatch = { expected, seen };
}

function spin(ms) {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

// CPU work inside a published set: where the reader's samples land, and
// where most terminations hit.
function labelledSpin(ms, expected) {
  Atomics.store(inside, id, 1);
  check(expected);
  spin(ms);
  check(expected);
  Atomics.store(inside, id, 0);
}

const sync = { worker, phase: 'sync' };
const async = { worker, phase: 'async' };
const nested = { worker, phase: 'async', step: 'inner' };

async function iteration() {
  run({ worker, phase: 'sync' }, () => labelledSpin(3, sync));
  await run({ worker, phase: 'async' }, async () => {
    labelledSpin(1, async);
    await immediate();
    check(async);
    await sleep(1);
    check(async);
    run({ step: 'inner' }, () => labelledSpin(2, nested));
    check(async);
  });
}

function stats() {
  parentPort.postMessage({ checks, mismatches, firstMismatch });
}

async function main() {
  const deadline = fate.startsWith('terminate') ? Infinity : Date.now() + lifeMs;
  // This thread's id, as the reader names it.
  const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
  parentPort.postMessage({ started: true, tid });
  let n = 0;
  while (Date.now() < deadline) {
    await iteration();
    if (++n % 8 === 0) stats();
  }
  stats();
  if (fate === 'process-exit') {
    run({ worker, phase: 'exit' }, () => {
      Atomics.store(inside, id, 1);
      process.exit(0);
    });
  }
}

main();
