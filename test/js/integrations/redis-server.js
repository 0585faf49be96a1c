'use strict';

// A real redis-server for the tests that need one (customlabels/bullmq): the
// Debian package's binary, started on a free port of 127.0.0.1 with no
// persistence (no RDB snapshots, no AOF) in a temporary directory of its
// own, ready once it answers PING; stop() shuts it down and removes the
// directory. CI installs redis-server (.ci/run); where it is missing,
// `redisServerPath` is null and the tests that need it skip with a
// customlabels-skip line (which fails a CI run).

const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

function findRedisServer() {
  if (process.env.REDIS_SERVER) return process.env.REDIS_SERVER;
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

const redisServerPath = findRedisServer();
const missingReason = 'redis-server is not installed (apt-get install redis-server)';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// Resolves true once 127.0.0.1:port answers PING with +PONG.
function ping(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      reply += d;
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

function startOnce(port, dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      redisServerPath,
      [
        '--port', String(port),
        '--bind', '127.0.0.1',
        '--save', '',
        '--appendonly', 'no',
        '--dir', dir,
        '--daemonize', 'no',
        '--maxmemory-policy', 'noeviction', // what BullMQ requires
        '--loglevel', 'warning',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    let exited = false;
    child.on('error', (err) => {
      exited = true;
      reject(err);
    });
    child.on('exit', (code, signal) => {
      exited = true;
      reject(new Error(`redis-server exited (${code ?? signal}) before answering PING on port ${port}:\n${log}`));
    });
    const deadline = Date.now() + 15000;
    const poll = async () => {
      if (exited) return;
      if (await ping(port)) {
        resolve({ child, log: () => log });
      } else if (Date.now() > deadline) {
        child.kill('SIGKILL');
        reject(new Error(`redis-server did not answer PING on port ${port} within 15 s:\n${log}`));
      } else {
        setTimeout(poll, 25);
      }
    };
    poll();
  });
}

// Starts a redis-server; resolves with { port, url, pid, stop }.
async function startRedis() {
  if (redisServerPath === null) throw new Error(missingReason);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-redis-'));
  let lastError;
  // A free port can be taken between finding it and binding it: try again.
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    let started;
    try {
      started = await startOnce(port, dir);
    } catch (err) {
      lastError = err;
      continue;
    }
    const { child } = started;
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    const exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', resolve);
    });
    return {
      port,
      url: `redis://127.0.0.1:${port}`,
      pid: child.pid,
      async stop() {
        process.removeListener('exit', killOnExit);
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  fs.rmSync(dir, { recursive: true, force: true });
  throw lastError;
}

module.exports = { startRedis, redisServerPath, missingReason, ping };
