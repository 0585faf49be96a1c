'use strict';

// What the stress suites share: their check lines, which run.js counts
// ("ok - …" / "not ok - …"), option parsing, and talking to child processes
// over IPC.

const { fork } = require('node:child_process');

const MB = 1024 * 1024;
const mb = (bytes) => (bytes / MB).toFixed(1);
const signed = (bytes) => `${bytes >= 0 ? '+' : ''}${mb(bytes)}`;

function createReport(prefix) {
  let failed = 0;
  return {
    check(ok, name, detail = '') {
      if (!ok) failed += 1;
      console.log(`${ok ? 'ok' : 'not ok'} - ${prefix}: ${name}${detail ? ` (${detail})` : ''}`);
      return ok;
    },
    info(line) {
      console.log(`# ${line}`);
    },
    get failed() {
      return failed;
    },
  };
}

// --name value / --flag options over defaults; numbers stay numbers. A bad
// option ends the process with exit code 2 and a one-line message.
function parseOptions(argv, defaults) {
  try {
    return parseOrThrow(argv, defaults);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
}

function parseOrThrow(argv, defaults) {
  const options = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (match === null) throw new Error(`unexpected argument '${argv[i]}'`);
    const name = match[1].replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (!(name in defaults)) throw new Error(`unknown option --${match[1]}`);
    if (typeof defaults[name] === 'boolean') {
      options[name] = match[2] === undefined ? true : match[2] !== 'false';
      continue;
    }
    const raw = match[2] !== undefined ? match[2] : argv[++i];
    if (raw === undefined) throw new Error(`--${match[1]} needs a value`);
    options[name] = typeof defaults[name] === 'number' ? Number(raw) : raw;
    if (typeof defaults[name] === 'number' && !Number.isFinite(options[name])) {
      throw new Error(`--${match[1]} needs a number, got '${raw}'`);
    }
  }
  return options;
}

// Runs a suite's async main and exits 0 if every check passed, 1 otherwise
// (an exception counts as a failed check).
function runMain(report, main) {
  main().then(
    () => process.exit(report.failed === 0 ? 0 : 1),
    (err) => {
      report.check(false, 'ran to the end', err.stack);
      process.exit(1);
    },
  );
}

// A child Node.js process (same binary) with an IPC channel; resolves once it
// sent its first message, which is returned with the child.
function forkReady(script, args, { execArgv = [], env = {} } = {}) {
  const child = fork(script, args, { execArgv, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (first) => resolve({ child, first }));
    child.once('exit', (code, signal) => reject(new Error(`${script} exited early (code ${code}, signal ${signal})`)));
  });
}

// Sends msg and resolves with the child's next message.
function ask(child, msg) {
  return new Promise((resolve, reject) => {
    const onExit = (code, signal) => reject(new Error(`child exited (code ${code}, signal ${signal})`));
    child.once('exit', onExit);
    child.once('message', (answer) => {
      child.removeListener('exit', onExit);
      resolve(answer);
    });
    child.send(msg);
  });
}

function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

module.exports = { MB, mb, signed, createReport, parseOptions, forkReady, ask, exited, runMain };
