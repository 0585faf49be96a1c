'use strict';

// A private RabbitMQ broker for the tests that need one (customlabels/
// amqplib): Debian's rabbitmq-server, started as a node of its own on free
// ports of 127.0.0.1 (AMQP, Erlang distribution, its own epmd), with its
// data, logs and config in a temporary directory, the default guest user;
// ready once an AMQP connection opens (4-7 s here). stop() ends it
// (SIGTERM to its process group), its epmd, and removes the directory.
// Debian's /usr/sbin wrappers switch to the rabbitmq user (another Erlang
// cookie), so the scripts in /usr/lib/rabbitmq/bin are run directly. CI
// installs rabbitmq-server (.ci/run); where it is missing,
// `rabbitmqServerPath` is null and the tests that need it skip, saying why
// (which fails a CI run).

const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const SCRIPT = '/usr/lib/rabbitmq/bin/rabbitmq-server';
const rabbitmqServerPath = process.env.RABBITMQ_SERVER || (fs.existsSync(SCRIPT) ? SCRIPT : null);
const missingReason = 'rabbitmq-server is not installed (apt-get install rabbitmq-server)';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startRabbitmq({ timeoutMs = 90000 } = {}) {
  if (rabbitmqServerPath === null) throw new Error(missingReason);
  const amqplib = require('amqplib');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-rabbitmq-'));
  for (const d of ['home', 'mnesia', 'log']) fs.mkdirSync(path.join(dir, d));
  const [port, dist, epmd] = [await freePort(), await freePort(), await freePort()];
  const file = (name, text) => {
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const env = {
    ...process.env,
    HOME: path.join(dir, 'home'),
    ERL_EPMD_PORT: String(epmd),
    ERL_EPMD_ADDRESS: '127.0.0.1',
    RABBITMQ_NODENAME: `customlabels${port}@localhost`,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(dist),
    RABBITMQ_CTL_DIST_PORT_MIN: String(dist + 1),
    RABBITMQ_CTL_DIST_PORT_MAX: String(dist + 11),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
    RABBITMQ_PID_FILE: path.join(dir, 'rabbit.pid'),
    RABBITMQ_CONFIG_FILE: file('rabbitmq.conf', `listeners.tcp.default = 127.0.0.1:${port}\n`),
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(dir, 'advanced.config'),
    RABBITMQ_CONF_ENV_FILE: file('rabbitmq-env.conf', ''),
    RABBITMQ_ENABLED_PLUGINS_FILE: file('enabled_plugins', '[].\n'),
    RABBITMQ_PLUGINS_EXPAND_DIR: path.join(dir, 'plugins-expand'),
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
  };
  const out = fs.openSync(path.join(dir, 'log', 'console.out'), 'w');
  const child = spawn(rabbitmqServerPath, [], { env, detached: true, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const url = `amqp://guest:guest@127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (exited) throw new Error(`rabbitmq-server exited while starting: ${fs.readFileSync(path.join(dir, 'log', 'console.out'), 'utf8').slice(-2000)}`);
    if (Date.now() - started > timeoutMs) {
      process.kill(-child.pid, 'SIGKILL');
      throw new Error('rabbitmq-server did not accept AMQP connections in time');
    }
    try {
      const c = await amqplib.connect(url);
      await c.close();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  async function stop() {
    if (!exited) {
      process.kill(-child.pid, 'SIGTERM');
      for (let i = 0; i < 300 && !exited; i++) await new Promise((r) => setTimeout(r, 50));
      if (!exited) process.kill(-child.pid, 'SIGKILL');
    }
    try {
      execFileSync('epmd', ['-port', String(epmd), '-kill'], { stdio: 'ignore', env });
    } catch {
      // gone already
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { url, port, startMs: Date.now() - started, stop };
}

module.exports = { startRabbitmq, rabbitmqServerPath, missingReason };
