'use strict';

// Each thread has its own custom_labels_current_set; workers label their own
// work, and a worker that dies inside a labelled scope leaves nothing behind.

const { Worker } = require('node:worker_threads');
const { withLabels, currentLabels } = require('../..');
const { addonPath, root, runNode, tick } = require('./helpers');

const binding = require(addonPath);

const workerSource = `
  const { parentPort, workerData } = require('node:worker_threads');
  const { withLabels, currentLabels } = require(${JSON.stringify(root)});
  const fs = require('node:fs');
  const tick = () => new Promise((r) => setImmediate(r));
  (async () => {
    const seen = [currentLabels()];
    await withLabels({ thread: workerData.name }, async () => {
      for (let i = 0; i < 30; i++) {
        await (i % 3 === 0 ? tick() : i % 3 === 1 ? new Promise((r) => setTimeout(r, 1)) : fs.promises.stat(process.execPath));
        seen.push(currentLabels());
        await withLabels({ step: String(i) }, async () => { await null; seen.push(currentLabels()); });
      }
    });
    seen.push(currentLabels());
    parentPort.postMessage(seen);
  })();
`;

function runWorker(name) {
  return new Promise((resolve, reject) => {
    const w = new Worker(workerSource, { eval: true, workerData: { name } });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

test('each worker thread sees only its own labels while the main thread runs its own', async () => {
  const mainSeen = [];
  const mainWork = withLabels({ thread: 'main' }, async () => {
    for (let i = 0; i < 60; i++) {
      await tick();
      mainSeen.push(currentLabels());
    }
  });
  const results = await Promise.all([runWorker('w1'), runWorker('w2'), runWorker('w3'), mainWork]);
  for (const [i, seen] of results.slice(0, 3).entries()) {
    const name = `w${i + 1}`;
    expect(seen[0]).toEqual({});
    expect(seen[seen.length - 1]).toEqual({});
    const inner = seen.slice(1, -1);
    expect(inner).toHaveLength(60);
    inner.forEach((labels, j) => {
      expect(labels).toEqual(j % 2 === 0 ? { thread: name } : { thread: name, step: String((j - 1) / 2) });
    });
  }
  expect(mainSeen).toEqual(Array(60).fill({ thread: 'main' }));
  expect(currentLabels()).toEqual({});
});

test('a worker terminated inside a labelled scope clears its slots and the process lives on', async () => {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const api = require(${JSON.stringify(root)});
     const binding = require(${JSON.stringify(addonPath)});
     // With trace ids, so that the set has an OTel record whatever the
     // process-wide key map holds.
     const { withTraceContext, TraceContext } = require(${JSON.stringify(`${root}/lib/core`)}).traceScopes;
     const ids = TraceContext.fromHex('0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331', 1);
     const { hooks, nodeContext } = api.strategy();
     withTraceContext(ids, { doomed: 'yes' }, () => {
       const at = (name) => binding.testing.tlsInfo(name).variableAddress;
       parentPort.postMessage({
         // The slots a reader follows in this mode: the label set and OTel
         // record pointers the hooks switch, and the Node.js struct's gate and
         // the Parca handle that lead to the same set without them.
         live: [...(hooks ? [at('custom_labels_current_set'), at('otel_thread_ctx_v1')] : []),
           ...(nodeContext === 'published' ? [at('otel_thread_ctx_nodejs_v1'), at('custom_labels_als_handle')] : [])],
         all: ['custom_labels_current_set', 'otel_thread_ctx_v1', 'otel_thread_ctx_nodejs_v1', 'custom_labels_als_handle'].map(at),
       });
       for (;;) {} // busy inside the scope until terminated
     });`,
    { eval: true },
  );
  const slots = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  // Read the worker's slots from this thread, as an external reader would.
  expect(slots.live.length).toBeGreaterThanOrEqual(2);
  for (const address of slots.live) {
    const live = binding.testing.peekWord(address);
    expect(live).not.toBe(0n);
    expect(live).not.toBeNull();
  }
  const code = await worker.terminate();
  expect(code).toBe(1);
  for (const address of slots.all) {
    const after = binding.testing.peekWord(address);
    // Either the thread's memory is gone or the slot was cleared: never a
    // pointer into the freed label set or record.
    expect(after === null || after === 0n).toBe(true);
  }
  expect(withLabels({ main: 'ok' }, currentLabels)).toEqual({ main: 'ok' });
});

test('terminating workers in labelled scopes, in a fresh process, exits cleanly', async () => {
  const { code, signal, stderr, stdout } = await runNode(`
    const { Worker } = require('node:worker_threads');
    const { withLabels, currentLabels } = require(${JSON.stringify(root)});
    const src = "const { withLabels } = require(" + JSON.stringify(${JSON.stringify(root)}) + ");" +
      "withLabels({ w: 'x' }, async () => { for (;;) await new Promise((r) => setImmediate(r)); });" +
      "require('node:worker_threads').parentPort.postMessage('ready');";
    (async () => {
      for (let i = 0; i < 8; i++) {
        const w = new Worker(src, { eval: true });
        await new Promise((r) => w.once('message', r));
        await withLabels({ main: String(i) }, async () => { await w.terminate(); });
      }
      const w = new Worker("const { withLabels } = require(" + JSON.stringify(${JSON.stringify(root)}) + "); withLabels({ a: 'b' }, () => process.exit(3));", { eval: true });
      const exit = await new Promise((r) => w.once('exit', r));
      process.stdout.write(JSON.stringify({ exit, labels: currentLabels() }));
    })();
  `);
  expect(stderr).toBe('');
  expect(signal).toBeNull();
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toEqual({ exit: 3, labels: {} });
});
