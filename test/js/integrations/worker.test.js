'use strict';

// customlabels/worker: tasks sent from labelled scopes run, in raw
// worker_threads workers (parentPort and a transferred MessagePort) and in a
// Piscina pool, under the sender's labels merged with the worker's own; the
// reader sees them from outside on the worker's thread.

const { testIf } = require('../helpers');
const e2e = require('./e2e/worker');
const worker = require('../../../lib/integrations/worker');
const { withLabels } = require('../../..');

const [major, minor] = process.versions.node.split('.').map(Number);
const piscinaRuns = major >= 20; // Piscina 5 needs Node.js >= 20

describe('tasks read from outside', () => {
  let result;
  let run;
  const n = e2e.N;

  beforeAll(async () => {
    result = await e2e.run({ piscina: piscinaRuns });
    ({ run } = result);
  }, 180000);

  test('the fixture ran every task and exited cleanly', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  test('raw workers: each task runs under its sender\'s labels on the worker thread', () => {
    e2e.tasksSeen(result, /^task (raw|port)\d+$/, 2 * n);
    const unlabelled = run.checkpoints.find((c) => c.name === 'task unlabelled');
    expect(unlabelled.seen.row.labels).toEqual({ thread: 'raw-worker' });
  });

  testIf(piscinaRuns, 'Piscina 5 needs Node.js >= 20')('Piscina: each task runs under its sender\'s labels on a pool thread', () => {
    const tasks = e2e.tasksSeen(result, /^task piscina\d+$/, n);
    expect(new Set(tasks.map((c) => c.tid)).size).toBeGreaterThanOrEqual(1);
  });

  test('the main thread keeps its labels after each task', () => {
    e2e.mainSeen(result);
  });

  test('a receiver that does not use the helpers gets its task with one extra plain-data property', () => {
    const cp = run.checkpoints.find((c) => c.name.startsWith('plain receiver got '));
    expect(JSON.parse(cp.name.slice('plain receiver got '.length))).toEqual({ id: 'plain', plain: true, value: 42, __customlabels: { tenant: 'acme' } });
  });
});

describe('the envelope', () => {
  test('only plain objects carry labels; other tasks pass unchanged', () => {
    withLabels({ a: '1' }, () => {
      expect(worker.withTaskLabels({ x: 1 })).toEqual({ x: 1, __customlabels: { a: '1' } });
      const arr = [1];
      expect(worker.withTaskLabels(arr)).toBe(arr);
      expect(worker.withTaskLabels(7)).toBe(7);
      const map = new Map();
      expect(worker.withTaskLabels(map)).toBe(map);
    });
    const task = { x: 1 };
    expect(worker.withTaskLabels(task)).toBe(task); // no labels: nothing added
  });

  test('the sender\'s task object is not modified', () => {
    const task = Object.freeze({ x: 1 });
    withLabels({ a: '1' }, () => worker.withTaskLabels(task));
    expect(Object.keys(task)).toEqual(['x']);
  });

  test('bad arguments are TypeErrors with stable codes', () => {
    expect(() => worker.handler(null)).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_CALLBACK' }));
    expect(() => worker.handler(() => {}, { labels: 'x' })).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_LABELS' }));
    // Label data in a message is the sender's, not an argument: what is not a
    // label is left out (one CUSTOMLABELS_TASK_LABELS warning) and the task runs.
    const { currentLabels } = require('../../..');
    expect(worker.runWithTaskLabels({ __customlabels: { k: {}, tenant: 'acme' }, x: 1 }, (task) => [currentLabels(), task])).toEqual([{ tenant: 'acme' }, { x: 1 }]);
    // parentPort on the main thread is null: said so, not "cannot read properties of null".
    const { parentPort } = require('node:worker_threads');
    expect(() => worker.onMessage(parentPort, () => {})).toThrow(
      expect.objectContaining({
        code: 'ERR_CUSTOMLABELS_INVALID_PORT',
        message: 'Expected a Worker or MessagePort (an object with on(); parentPort is null outside a worker) for port but received null of type null',
      }),
    );
    expect(() => worker.postMessage({}, { a: 1 })).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_PORT' }));
    expect(() => worker.onMessage(new (require('node:events'))(), 'nope')).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_CALLBACK' }));
  });
});

void minor;
