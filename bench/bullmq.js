'use strict';

// customlabels/bullmq against the same labels set by hand: worker CPU per
// job of a real BullMQ Worker on a real redis-server, by mode:
//   none         the bare processor
//   labels-mw    the hand-written equivalent:
//                (job) => withLabels({ queue: job.queueName, job: job.name,
//                  ...job.data.__customlabels }, () => fn(job))
//   integration  processor(fn) of customlabels/bullmq
// Each run is one worker process (pinned to CPU 0; redis-server to CPU 1)
// that processes the modes in alternating blocks of --block jobs (the order
// rotating from block to block), so Redis and the machine's drift hit every
// mode alike; every job does the same Redis work (the jobs, the same data
// with the producer's labels where `--data labelled`, are all added before
// the worker starts). process.cpuUsage is read when each block's first job
// starts, and the CPU between two reads (the process's BullMQ and ioredis
// work, and the processor) is the previous block's; the first --warmup jobs
// are not counted. Once any mode called withLabels, hooks are on in the
// process, so `none` here is the bare processor in a process with hooks on.
// The wrappers are also measured alone (`processorNs`: each mode's processor
// called on jobs as BullMQ makes them, data parsed from JSON, no Redis).
//
//   node bench/bullmq.js [--node PATH|MAJOR]... [--runs 5] [--jobs 20000] [--warmup 3000] [--block 500] [--data labelled|plain|both]
//
// --jobs is per mode. Prints one JSON line per Node.js version and data
// kind: medians per mode over the runs and the medians of the per-run ratios
// integration ÷ labels-mw. benchBullmq(node, options) gives the same for
// bench/run.js's integrations suite.

const { execFileSync, spawn } = require('node:child_process');
const os = require('node:os');

const MODES = ['none', 'labels-mw', 'integration'];
const TENANTS = ['acme', 'globex', 'initech'];
const NAMES = ['resize', 'crop', 'thumbnail'];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const rotate = (xs, k) => xs.map((_, i) => xs[(i + k) % xs.length]);
const pinned = os.cpus().length > 1;

// The job data of job i (the same in every mode).
function jobData(i, labelled) {
  const data = { i, image: `images/${i}.png`, sizes: [64, 128, 256] };
  if (labelled) data.__customlabels = { tenant: TENANTS[i % 3], route: '/thumbnails' };
  return data;
}

function makeProcessor(mode) {
  const fn = async (job) => {
    await null;
    return job.data.i;
  };
  if (mode === 'none') return fn;
  if (mode === 'labels-mw') {
    const { withLabels } = require('..');
    return (job) => withLabels({ queue: job.queueName, job: job.name, ...job.data.__customlabels }, () => fn(job));
  }
  if (mode === 'integration') return require('../lib/integrations/bullmq').processor(fn);
  throw new Error(`unknown mode ${mode}`);
}

// --- the worker process -----------------------------------------------------

async function child(port, jobs, warmup, block, labelled) {
  const { Queue, Worker } = require('bullmq');
  const connection = { host: '127.0.0.1', port };
  const queueName = `bench-${process.pid}`;
  const queue = new Queue(queueName, { connection });
  const total = warmup + jobs * MODES.length;
  for (let start = 0; start < total; start += 1000) {
    const batch = [];
    for (let i = start; i < Math.min(total, start + 1000); i++) {
      batch.push({ name: NAMES[i % 3], data: jobData(i, labelled), opts: { removeOnComplete: true } });
    }
    await queue.addBulk(batch);
  }
  const procs = MODES.map(makeProcessor);
  // Block b runs mode (b + floor(b / 3)) % 3: every mode once per 3 blocks,
  // each time after another one.
  const modeOf = (i) => {
    const b = Math.floor(i / block);
    return (b + Math.floor(b / MODES.length)) % MODES.length;
  };
  const cpu = MODES.map(() => 0);
  const counted = MODES.map(() => 0);
  let mark = null; // { at: cpuUsage, mode } of the block under way
  let done = 0;
  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  const dispatch = (job) => {
    const { i } = job.data;
    const mode = modeOf(i);
    if (i % block === 0) {
      const now = process.cpuUsage();
      if (mark !== null && i > warmup) {
        cpu[mark.mode] += now.user + now.system - mark.at;
        counted[mark.mode] += block;
      }
      mark = { at: now.user + now.system, mode };
    }
    return procs[mode](job);
  };
  const worker = new Worker(queueName, dispatch, { connection, concurrency: 10 });
  worker.on('completed', () => {
    if (++done === total) finish();
  });
  await finished;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();

  // The wrappers alone: jobs as BullMQ makes them (data parsed from JSON),
  // modes alternating.
  const stored = Array.from({ length: 300 }, (_, i) => JSON.stringify(jobData(i, labelled)));
  const fake = (i) => ({ name: NAMES[i % 3], queueName, data: JSON.parse(stored[i % 300]) });
  const ns = MODES.map(() => 0);
  for (let round = 0; round < 10; round++) {
    for (const m of rotate([0, 1, 2], round)) {
      const inner = procs[m];
      for (let i = 0; i < 2000; i++) await inner(fake(i));
      const s0 = process.hrtime.bigint();
      for (let i = 0; i < 20000; i++) await inner(fake(i));
      ns[m] += Number(process.hrtime.bigint() - s0) / 20000 / 10;
    }
  }
  const out = {};
  MODES.forEach((m, k) => (out[m] = { usPerJob: cpu[k] / counted[k], jobs: counted[k], processorNs: ns[k] }));
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

// --- the parent --------------------------------------------------------------

function runChild(node, port, { jobs, warmup, block, labelled }) {
  return new Promise((resolve, reject) => {
    const argv = [__filename, '--child', String(port), String(jobs), String(warmup), String(block), labelled ? 'labelled' : 'plain'];
    const options = { stdio: ['ignore', 'pipe', 'inherit'] };
    const child = pinned ? spawn('taskset', ['-c', '0', node, ...argv], options) : spawn(node, argv, options);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`bench/bullmq.js --child exited ${code}`))));
  });
}

// { node, data, median: {mode: usPerJob}, processorNs: {mode: ns}, samples, ratios }
async function benchBullmq(node, { runs = 5, jobs = 20000, warmup = 3000, block = 500, data = 'labelled', port } = {}) {
  let redis = null;
  if (port === undefined) {
    redis = await require('../test/js/integrations/redis-server').startRedis();
    port = redis.port;
    if (pinned) execFileSync('taskset', ['-pc', '1', String(redis.pid)], { stdio: 'ignore' });
  }
  try {
    const labelled = data === 'labelled';
    const samples = {};
    const processor = {};
    for (let r = 0; r < runs; r++) {
      const m = await runChild(node, port, { jobs, warmup, block, labelled });
      for (const mode of MODES) {
        (samples[mode] ||= []).push(m[mode].usPerJob);
        (processor[mode] ||= []).push(m[mode].processorNs);
      }
      process.stderr.write(`  ${version(node)} bullmq (${data}) run ${r + 1}/${runs}\n`);
    }
    const perRun = (s, a, b) => s[a].map((x, i) => x / s[b][i]);
    return {
      node: version(node),
      data,
      median: Object.fromEntries(MODES.map((m) => [m, median(samples[m])])),
      processorNs: Object.fromEntries(MODES.map((m) => [m, median(processor[m])])),
      samples,
      processorSamples: processor,
      ratios: {
        integrationToLabelsMw: median(perRun(samples, 'integration', 'labels-mw')),
        processorIntegrationToLabelsMw: median(perRun(processor, 'integration', 'labels-mw')),
      },
    };
  } finally {
    if (redis !== null) await redis.stop();
  }
}

function version(node) {
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
}

async function main(args) {
  if (args[0] === '--child') {
    const [, port, jobs, warmup, block, data] = args;
    await child(Number(port), Number(jobs), Number(warmup), Number(block), data === 'labelled');
    process.exit(0);
  }
  const { opt, nodes: nodesOr } = require('./cli').cli(__filename, args);
  const nodes = nodesOr([process.execPath]);
  const kinds = opt('--data', 'both') === 'both' ? ['labelled', 'plain'] : [opt('--data')];
  const options = {
    runs: Number(opt('--runs', 5)),
    jobs: Number(opt('--jobs', 20000)),
    warmup: Number(opt('--warmup', 3000)),
    block: Number(opt('--block', 500)),
  };
  const redis = await require('../test/js/integrations/redis-server').startRedis();
  if (pinned) execFileSync('taskset', ['-pc', '1', String(redis.pid)], { stdio: 'ignore' });
  try {
    for (const node of nodes) {
      for (const data of kinds) {
        const r = await benchBullmq(node, { ...options, data, port: redis.port });
        const { samples, processorSamples, ...shown } = r;
        process.stdout.write(`${JSON.stringify(shown)}\n`);
      }
    }
  } finally {
    await redis.stop();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

module.exports = { benchBullmq, MODES };
