'use strict';

// Worker churn under an outside reader: churn-target.js starts hundreds of
// labelling workers and terminates most of them inside labelled scopes while
// build/Release/customlabels-reader samples it (`sample --hz 200`) and
// inspects it (`inspect --json`) in turn, one reader at a time, until the
// churn is over. Asserts: the target neither crashes nor loses a worker to an
// error; every reader run exits 0; the reader's errors only name threads
// that went away; every label set the reader saw is one the target
// published, on the thread that published it; the reader did see workers'
// labels (the precondition); the target's RSS stays bounded.
//   node test/stress/churn.js [--workers 300] [--alive 4] [--checkpoint 30]
//        [--max-growth 30] [--sample-seconds 2] [--hz 200] [--gc] [--json FILE]

const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { spawn } = require('node:child_process');
const { MB, mb, signed, createReport, parseOptions, exited, runMain } = require('./report');
const { growth, youngGeneration } = require('./memory');

const root = path.join(__dirname, '..', '..');
const readerPath = path.join(root, 'build', 'Release', 'customlabels-reader');

const options = parseOptions(process.argv.slice(2), {
  workers: 300,
  alive: 4,
  checkpoint: 30,
  maxGrowth: 30,
  sampleSeconds: 2,
  hz: 200,
  inspections: 3,
  gc: false,
  json: '',
});
const report = createReport(`churn ${process.version}`);

// A tid the reader named in an error must go away: a thread that is still
// there this long after the reader finished was not exiting.
const GONE_WITHIN_MS = 250;
const taskPath = (pid, tid) => `/proc/${pid}/task/${tid}`;

async function goneWithin(pid, tid, ms) {
  const start = Date.now();
  while (fs.existsSync(taskPath(pid, tid))) {
    if (Date.now() - start > ms) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

function runReader(args, timeoutMs) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(readerPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ args, code, signal, stdout, stderr, started, ended: Date.now(), timedOut: signal === 'SIGKILL' });
    });
  });
}

// Reader errors: per-thread "error" (could not read) and "problems" (a
// malformed set) fields of JSON rows, and stderr lines, each with the tid it
// names (null: names none).
function readerErrors(run) {
  const errors = [];
  for (const row of run.rows) {
    if (row.error !== undefined || row.problems !== undefined) errors.push({ tid: row.tid, text: JSON.stringify(row) });
  }
  for (const line of run.stderr.split('\n').filter(Boolean)) {
    const m = /\b(?:thread|tid)\s+(\d+)/.exec(line);
    errors.push({ tid: m ? Number(m[1]) : null, text: line });
  }
  return errors;
}

const PHASES = new Set(['sync', 'async', 'exit']);
// Whether `labels` on thread `tid` is a set the target publishes there.
function expectedShape(labels, tid, pid, tidOfWorker) {
  const keys = Object.keys(labels).sort().join(',');
  if (tid === pid) return keys === 'phase,thread' && labels.thread === 'main' && labels.phase === 'tick';
  const id = Number(labels.worker);
  if (!Number.isInteger(id) || String(id) !== labels.worker) return false;
  if (!tidOfWorker.has(id)) return false; // not a worker of this run
  const own = tidOfWorker.get(id); // null: terminated before it said
  if (own !== null && own !== tid) return false;
  if (keys === 'phase,worker') return PHASES.has(labels.phase);
  return keys === 'phase,step,worker' && labels.phase === 'async' && labels.step === 'inner';
}

async function main() {
  if (!fs.existsSync(readerPath)) throw new Error(`${readerPath} is missing: run npx node-gyp rebuild`);
  const started = Date.now();
  const target = spawn(
    process.execPath,
    [
      ...(options.gc ? ['--expose-gc'] : []),
      path.join(__dirname, 'churn-target.js'),
      '--workers', String(options.workers),
      '--alive', String(options.alive),
      '--checkpoint', String(options.checkpoint),
      ...(options.gc ? ['--gc'] : []),
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let targetStderr = '';
  target.stderr.on('data', (d) => (targetStderr += d));
  const checkpoints = [];
  let ready;
  let done = null;
  const readyP = new Promise((resolve) => (ready = resolve));
  const doneP = new Promise((resolve) => {
    readline.createInterface({ input: target.stdout }).on('line', (line) => {
      const msg = JSON.parse(line);
      if (msg.ready) ready(msg);
      if (msg.checkpoint) checkpoints.push(msg);
      if (msg.done) resolve((done = msg));
    });
  });
  const targetExit = exited(target);
  const first = await Promise.race([readyP, targetExit.then(() => null)]);
  if (first === null) throw new Error(`target exited before it was ready: ${targetStderr}`);
  const pid = first.pid;

  // One reader at a time (two ptrace users cannot hold the same thread).
  const runs = [];
  const record = async (run) => {
    run.rows = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    run.errors = readerErrors(run);
    for (const e of run.errors) {
      if (e.tid !== null) e.gone = await goneWithin(pid, e.tid, GONE_WITHIN_MS);
    }
    runs.push(run);
  };
  while (done === null) {
    await record(await runReader(['sample', String(pid), '--hz', String(options.hz), '--duration', `${options.sampleSeconds}s`, '--json'], options.sampleSeconds * 1000 + 30000));
    for (let i = 0; i < options.inspections && done === null; i++) {
      await record(await runReader(['inspect', String(pid), '--json'], 30000));
    }
  }
  await doneP;
  target.stdin.end();
  const { code, signal } = await targetExit;
  const seconds = (Date.now() - started) / 1000;
  const { tally, lives } = done;

  // What the reader saw.
  const tidOfWorker = new Map(lives.map((l) => [l.id, l.tid]));
  const samples = runs.filter((r) => r.args[0] === 'sample');
  const inspects = runs.filter((r) => r.args[0] === 'inspect');
  let samplesTaken = 0;
  let workerSamples = 0;
  let mainSamples = 0;
  let threadsInspected = 0;
  const workersSeen = new Set();
  const foreign = [];
  for (const run of runs) {
    for (const row of run.rows) {
      if (row.error !== undefined || row.problems !== undefined) continue;
      const n = run.args[0] === 'sample' ? row.samples : 1;
      if (run.args[0] === 'sample') samplesTaken += n;
      else threadsInspected += 1;
      if (row.labels === null || row.labels === undefined) continue;
      if (!expectedShape(row.labels, row.tid, pid, tidOfWorker)) {
        foreign.push(`${run.args[0]}: tid ${row.tid} ${JSON.stringify(row.labels)}`);
      } else if (row.tid === pid) {
        mainSamples += run.args[0] === 'sample' ? n : 0;
      } else {
        workersSeen.add(row.labels.worker);
        if (run.args[0] === 'sample') workerSamples += n;
      }
    }
  }
  const errors = runs.flatMap((r) => r.errors.map((e) => ({ ...e, run: r })));
  const badErrors = errors.filter((e) => {
    if (e.tid === null || e.tid === pid || !e.gone) return true;
    // A worker's tid must belong to a worker that ended by the time the reader did.
    const life = lives.filter((l) => l.tid === e.tid && l.started <= e.run.ended).pop();
    return life !== undefined && (life.exited === null || life.exited > e.run.ended + GONE_WITHIN_MS);
  });
  const failedRuns = runs.filter((r) => r.code !== 0 || r.signal !== null);

  // Memory: after the warm-up checkpoint versus the last one, none alive at either.
  const base = checkpoints[0].memory;
  const end = checkpoints[checkpoints.length - 1].memory;
  const grown = growth(base, end); // V8's young generation aside: memory.js
  const col = (key) => checkpoints.map((c) => mb(c.memory[key])).join(' ');

  report.info(`target ${first.version} pid ${pid}: ${tally.started} workers (${options.alive} alive at a time) in ${seconds.toFixed(1)} s${options.gc ? ', forced GC before each checkpoint' : ''}`);
  report.info(`fates: ${tally.terminated} terminated in their loop (${tally.terminatedInside} while inside a sync labelled scope), ${tally.terminatedEarly} terminated while loading, ${tally.naturalExits} returned, ${tally.processExits} called process.exit() inside a scope`);
  report.info(`reader: ${samples.length} sample runs (${samplesTaken} samples, ${workerSamples} with a worker's labels, ${mainSamples} with main's), ${inspects.length} inspect runs (${threadsInspected} threads), ${workersSeen.size} distinct workers seen labelled, ${errors.length} errors`);
  for (const e of errors.slice(0, 5)) report.info(`reader error: ${e.text.trim()} (gone: ${e.gone})`);
  report.info(`workers done at each checkpoint: ${checkpoints.map((c) => c.checkpoint).join(' ')}`);
  report.info(`rss MB:          ${col('rss')}`);
  report.info(`heapUsed MB:     ${col('heapUsed')}`);
  report.info(`external MB:     ${col('external')}`);
  report.info(`young gen MB:    ${checkpoints.map((c) => mb(youngGeneration(c.memory))).join(' ')}`);

  report.check(code === 0 && signal === null, 'the target exited normally', `code ${code}, signal ${signal}${targetStderr ? `, stderr: ${targetStderr.slice(0, 2000)}` : ''}`);
  report.check(tally.exited === options.workers && tally.started === options.workers, 'every worker started and exited', `${tally.exited} of ${options.workers}`);
  report.check(tally.errors.length === 0 && tally.unexpectedExit.length === 0, 'no worker failed', [...tally.errors, ...tally.unexpectedExit].slice(0, 3).join('; '));
  report.check(
    tally.checks > 0 && tally.mismatches === 0,
    'workers always saw their own labels through the ABI',
    tally.mismatches === 0 ? `0 mismatches in ${tally.checks} checks` : `${tally.mismatches} mismatches, first: ${JSON.stringify(tally.firstMismatch)}`,
  );
  report.check(
    tally.terminatedInside >= tally.terminated / 3,
    'workers were terminated with a label set published',
    `${tally.terminatedInside} of ${tally.terminated} inside a sync labelled scope`,
  );
  report.check(
    failedRuns.length === 0,
    'every reader run exited 0',
    failedRuns.length === 0
      ? `${runs.length} runs`
      : failedRuns.slice(0, 3).map((r) => `${r.args.join(' ')}: code ${r.code} signal ${r.signal}${r.timedOut ? ' (timed out)' : ''} ${r.stderr.trim()}`).join('; '),
  );
  report.check(
    badErrors.length === 0,
    "the reader's errors only named threads that went away",
    badErrors.length === 0 ? `${errors.length} errors, all for exited threads` : badErrors.slice(0, 3).map((e) => e.text.trim()).join('; '),
  );
  report.check(foreign.length === 0, 'every label set the reader saw was published by that thread', foreign.slice(0, 3).join('; '));
  report.check(workersSeen.size >= 10, 'the reader saw labelled workers (precondition)', `${workersSeen.size} workers, ${workerSamples} samples`);
  report.check(
    grown.counted <= options.maxGrowth * MB,
    `RSS grew at most ${options.maxGrowth} MB from the first checkpoint to the last, V8's young generation aside`,
    `RSS ${mb(base.rss)} -> ${mb(end.rss)} MB: ${signed(grown.rss)} MB, young generation ${signed(grown.young)} MB, counted ${signed(grown.counted)} MB`,
  );

  if (options.json) {
    const result = { node: first.version, workers: tally.started, seconds, sampleRuns: samples.length, samplesTaken, workerSamples, inspectRuns: inspects.length, threadsInspected, workersSeen: workersSeen.size, readerErrors: errors.length, tally: { ...tally, errors: tally.errors.length }, checkpoints };
    fs.writeFileSync(options.json, `${JSON.stringify(result)}\n`);
  }
}

runMain(report, main);
