'use strict';

// BullMQ jobs labelled by customlabels/bullmq: requests of three tenants add
// `resize` jobs (acme's cost 1 ms of CPU, globex's 2 ms, initech's 3 ms) and
// a Worker processes them, each under queue, job (the job name), the tenant
// and route of the request that added it, and the worker's own `pool`. It
// runs for --seconds (default 30) and prints its pid, so you can watch it
// from outside:
//
//   node examples/bullmq.js &
//   npm run reader -- sample <pid> --duration 5s --by tenant
//
// Redis: REDIS_URL (redis://host:port), or else a redis-server on PATH that
// the example starts on a free port of 127.0.0.1 and stops at the end.
// Requires bullmq (npm install bullmq ioredis; BullMQ 6 takes ioredis as a peer).

const { spawn } = require('node:child_process');
const net = require('node:net');
const { Queue, Worker } = require('bullmq');
const { withLabels } = require('customlabels');
const { add, processor } = require('customlabels/bullmq');

const { burn, secondsArg } = require('./load');

const seconds = secondsArg();
const cost = { acme: 1, globex: 2, initech: 3 }; // ms of CPU per job

// The worker: one processor, wrapped. In a sandboxed processor file it is
// `module.exports = processor(async (job) => ...)`.
function startWorker(connection) {
  return new Worker(
    'thumbnails',
    processor(
      async (job) => {
        await job.updateProgress(10); // labels hold across awaits...
        await new Promise((r) => setTimeout(r, 1)); // ...and timers
        burn(job.data.ms); // CPU attributed to the job's tenant
        return job.data.ms;
      },
      { labels: { pool: 'thumbnails' } },
    ),
    { connection, concurrency: 4 },
  );
}

// The producers: each "request" adds a job from its labelled scope and waits
// for the queue to drain a little, so the backlog stays small.
async function produce(queue, stopAt) {
  const tenants = Object.keys(cost);
  let n = 0;
  while (Date.now() < stopAt) {
    const waiting = await queue.getWaitingCount();
    if (waiting > 20) {
      await new Promise((r) => setTimeout(r, 5));
      continue;
    }
    const tenant = tenants[n++ % tenants.length];
    await withLabels({ tenant, route: '/thumbnails' }, () => add(queue, 'resize', { ms: cost[tenant] }, { removeOnComplete: true }));
  }
}

async function main() {
  const redis = await redisConnection();
  try {
    const connection = redis.connection;
    const queue = new Queue('thumbnails', { connection });
    await queue.obliterate({ force: true });
    const worker = startWorker(connection);
    console.log(`pid ${process.pid}: adding and processing jobs for ${seconds} s`);
    await produce(queue, Date.now() + seconds * 1000);
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();
  } finally {
    await redis.stop(); // also when anything above failed
  }
}

// REDIS_URL, or a redis-server of our own (no persistence) on a free port.
async function redisConnection() {
  if (process.env.REDIS_URL) {
    const url = new URL(process.env.REDIS_URL);
    const connection = {
      host: url.hostname,
      port: Number(url.port || 6379),
      username: url.username || undefined,
      password: url.password || undefined,
      db: Number(url.pathname.slice(1)) || 0,
    };
    return { connection, stop: async () => {} };
  }
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = s.address();
      s.close(() => resolve(free));
    });
  });
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => server.once('exit', resolve));
  await new Promise((resolve, reject) => {
    let gone = false;
    server.once('error', () => reject(new Error('set REDIS_URL, or put redis-server on PATH')));
    exited.then((code) => {
      gone = true;
      reject(new Error(`redis-server exited (${code}) before it answered on port ${port}`));
    });
    const poll = () => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => gone || setTimeout(poll, 20));
    };
    poll();
  });
  return {
    connection: { host: '127.0.0.1', port },
    stop: async () => {
      server.kill('SIGTERM');
      await exited;
    },
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
