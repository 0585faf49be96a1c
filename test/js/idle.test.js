'use strict';

// A thread whose last labelled work was a promise reaction, and that now
// waits in its event loop (epoll_wait), shows no labels to a reader from
// outside: with the 'frame-before' switch no hook restores the labels after
// a promise reaction, and the addon clears them each time the loop is about
// to wait for I/O (src/binding/idle_clear.h). On the main thread and in a
// worker.

const { spawn, execFile } = require('node:child_process');
const fs = require('node:fs');
const readline = require('node:readline');
const { root, readerPath, sleep } = require('./helpers');

function waitingInEpoll(pid, tid) {
  try {
    return /epoll/.test(fs.readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8'));
  } catch {
    return false;
  }
}

function inspect(pid, tid) {
  return new Promise((resolve) => {
    execFile(readerPath, ['inspect', String(pid), '--tid', String(tid), '--json'], { encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ code: err ? err.code : 0, row: stdout ? JSON.parse(stdout.trim().split('\n')[0]) : null, stderr }),
    );
  });
}

// The script: work() on the main thread, or in one worker (the main thread
// then waits in its own loop too).
function script(where) {
  const body = `
    const { withLabels, currentLabels, strategy } = require(${JSON.stringify(root)});
    const fs = require('node:fs');
    const tid = () => Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    withLabels({ warm: 'up' }, () => {});
    // The switch settles asynchronously (lib/core/switcher.js probeCallbacks).
    setTimeout(() => {
      withLabels({ request: 'r1' }, async () => {
        await null;
        await new Promise((r) => setImmediate(r));
        await null;
        const s = strategy();
        fs.writeSync(1, JSON.stringify({ tid: tid(), strategy: s.strategy, clears: s.clearsWhenIdle, inside: currentLabels() }) + '\\n');
      });
    }, 100);
    setTimeout(() => {}, 60000);
  `;
  if (where === 'main thread') return body;
  return `const { Worker } = require('node:worker_threads'); new Worker(${JSON.stringify(body)}, { eval: true }); setTimeout(() => {}, 60000);`;
}

test.each(['main thread', 'worker'])('%s: after a labelled promise reaction, the thread idle in its event loop shows no labels', async (where) => {
  const child = spawn(process.execPath, ['-e', script(where)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const line = await new Promise((resolve) => readline.createInterface({ input: child.stdout }).once('line', resolve));
    const seen = JSON.parse(line);
    // The labels were installed while the reaction ran.
    expect(seen.inside).toEqual({ request: 'r1' });
    for (let i = 0; i < 200 && !waitingInEpoll(child.pid, seen.tid); i++) await sleep(10);
    expect(waitingInEpoll(child.pid, seen.tid)).toBe(true);
    const r = await inspect(child.pid, seen.tid);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect({ strategy: seen.strategy, labels: r.row.labels, set: r.row.set }).toEqual({ strategy: seen.strategy, labels: null, set: '0x0' });
    // Where the switch leaves promise reactions' labels installed, it is the
    // idle clear that removed them.
    if (seen.strategy === 'frame-before') expect(seen.clears).toBe(true);
  } finally {
    child.kill();
  }
});
