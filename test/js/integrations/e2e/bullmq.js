'use strict';

// customlabels/bullmq end to end with a real redis-server: jobs added from
// labelled scopes, processed inline, in sandboxed child processes and in
// sandboxed worker threads, by hand (test/js/fixtures/bullmq-app.js) or with
// customlabels/register (bullmq-register.js), read from outside in
// whichever process runs each job. bullmq.test.js checks each job's labels
// one by one; these are the checks every BullMQ version must pass.

const fs = require('node:fs');
const path = require('node:path');
const { runCheckpoints, expectEveryCheckpointSeen } = require('../harness');

const fixtures = path.join(__dirname, '..', '..', 'fixtures');

// The process a thread belongs to (a sandbox's child process is not the
// fixture's).
function tgidOf(tid) {
  const status = fs.readFileSync(`/proc/${tid}/status`, 'utf8');
  return Number(status.match(/^Tgid:\s*(\d+)$/m)[1]);
}

// harness.runCheckpoints, reading each checkpoint in the process of its
// thread: the fixture's, or a BullMQ sandbox child process whose output the
// fixture passes on. Resolves with {checkpoints, events, code, stderr}.
async function runFixture(args, file, env = {}) {
  const events = [];
  let fixturePid;
  const run = await runCheckpoints(file, {
    args,
    // Warnings are reported as events (the fixture's and the sandboxes'
    // 'warning' listeners), so stderr holds only what should not be there.
    env: { NODE_NO_WARNINGS: '1', ...env },
    onEvent: (msg) => events.push(msg),
    processOf: (tid, child) => {
      fixturePid = child.pid;
      return tgidOf(tid);
    },
    timeoutMs: 150000,
  });
  return { ...run, events, checkpoints: run.checkpoints.map((cp) => ({ ...cp, fixturePid })) };
}

// The jobs bullmq-app.js adds in `mode` (inline, child, thread); the two
// ticks of a job scheduler where the BullMQ has them (`scheduler`).
const jobIdsOf = (mode, scheduler = true) => [
  ...Array.from({ length: 6 }, (_, i) => `email-${i}`),
  'retry',
  'plain',
  'delayed',
  'long',
  'own',
  ...(mode === 'inline' ? ['bad-type', 'bad-labels', 'flow-parent', 'flow-child', ...(scheduler ? ['tick', 'tick'] : [])] : []),
];

// `registered`: the app with no line of ours, under register (its env).
async function run({ port, mode, registered = false, env = {} }) {
  if (registered) return { run: await runFixture([String(port), mode], path.join(fixtures, 'bullmq-register.js'), env), mode, registered };
  return { run: await runFixture([String(port), mode, '6'], path.join(fixtures, 'bullmq-app.js'), env), mode, registered };
}

// Every job completed; the thrown error failed its first attempt unchanged.
function served({ run: r, mode, registered }) {
  const result = r.events.find((e) => e.event === 'result');
  if (registered) {
    for (const cp of r.checkpoints) expect({ name: cp.name, inFixture: cp.pid === result.pid }).toEqual({ name: cp.name, inFixture: mode === 'inline' });
    return;
  }
  expect(result.completed.map((c) => c.id).sort()).toEqual([...jobIdsOf(mode, result.scheduler)].sort());
  expect(result.failed).toEqual([{ id: 'retry', message: 'boom retry', attemptsMade: 1, jobError: mode === 'inline' ? true : expect.any(Boolean) }]);
}

function checkpoints({ run: r, mode, registered }) {
  if (registered) expect(r.checkpoints).toHaveLength(6 * 3);
  else expect(r.checkpoints.length).toBeGreaterThanOrEqual(jobIdsOf(mode, r.events.find((e) => e.event === 'result').scheduler).length * 3 + 4);
  expectEveryCheckpointSeen(r.checkpoints);
}

// The warnings the fixture saw ({ code, message }).
const warnings = ({ run: r }) => r.events.find((e) => e.event === 'result').warnings;

module.exports = { run, served, checkpoints, warnings, runFixture, jobIdsOf };
