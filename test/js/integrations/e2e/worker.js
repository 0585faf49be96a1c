'use strict';

// customlabels/worker end to end (test/js/fixtures/worker-app.js): tasks
// sent from labelled scopes run, in raw worker_threads workers and in a
// Piscina pool, under the sender's labels merged with the worker's own.

const path = require('node:path');
const { runCheckpoints } = require('../harness');

const fixture = path.join(__dirname, '..', '..', 'fixtures', 'worker-app.js');
const N = 9;

async function run({ piscina = true, env = {} } = {}) {
  return { run: await runCheckpoints(fixture, { args: [String(N), piscina ? 'piscina' : 'no-piscina'], env }) };
}

// The tasks named by `pattern` (raw: /^task (raw|port)\d+$/, Piscina:
// /^task piscina\d+$/), each run on a worker thread under its sender's
// labels, `count` of them.
function tasksSeen({ run: r }, pattern, count) {
  const tasks = r.checkpoints.filter((c) => pattern.test(c.name));
  expect(tasks).toHaveLength(count);
  for (const cp of tasks) {
    expect(cp.tid).not.toBe(cp.pid);
    expect({ name: cp.name, tid: cp.seen.row.tid, labels: cp.seen.row.labels }).toEqual({ name: cp.name, tid: cp.tid, labels: cp.expect });
  }
  return tasks;
}

// The main thread keeps its labels after each task.
function mainSeen({ run: r }) {
  const main = r.checkpoints.filter((c) => c.name.startsWith('main after task'));
  expect(main).toHaveLength(N);
  for (const cp of main) {
    expect(cp.tid).toBe(cp.pid);
    expect(cp.seen.row.labels).toEqual(cp.expect);
  }
}

// What every Piscina version must give: its tasks under their senders'
// labels, and the main thread's kept.
function checkpoints(result) {
  tasksSeen(result, /^task piscina\d+$/, N);
  mainSeen(result);
}

module.exports = { run, checkpoints, tasksSeen, mainSeen, N };
