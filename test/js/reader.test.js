'use strict';

// End-to-end: the `customlabels` reader reads labelled Node.js processes from
// outside, as an eBPF profiler does (TLSDESC + thread pointer, ptrace,
// process_vm_readv), and is the oracle for what a profiler sees.

const { spawn, execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { root, addonPath, readerPath, CAP, hasCapability, testIf, sleep, lateWindow, unfitWindow, favoured, favouredDuring } = require('./helpers');

const binPath = path.join(root, 'bin', 'customlabels.js');
const fixtures = path.join(__dirname, 'fixtures');

// `favour`: the reader runs first on its CPU (helpers.favoured), for the
// tests whose verdict needs its ticks on time.
function runReader(args, { via = 'binary', user, env, favour = false } = {}) {
  let file = via === 'bin' ? process.execPath : readerPath;
  let argv = via === 'bin' ? [binPath, ...args] : args;
  if (user) {
    argv = [`--reuid=${user}`, '--regid=nogroup', '--clear-groups', file, ...argv];
    file = 'setpriv';
  }
  return new Promise((resolve) => {
    const reader = execFile(file, argv, { encoding: 'utf8', timeout: 30000, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
    if (favour) favoured(reader);
  });
}

const jsonLines = (stdout) => stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
const labelsOf = (stdout, tid) => jsonLines(stdout).find((t) => t.tid === tid);

// Starts a Node.js script that prints "ready" once its labels are set and
// then blocks; resolves with the child once it is ready.
function startBlocked(source, { env = {} } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', source], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    child.once('error', reject);
    readline.createInterface({ input: child.stdout }).once('line', (line) => {
      if (line === 'ready') resolve(child);
      else reject(new Error(`unexpected line ${line}`));
    });
  });
}

const blockAfter = (setup) => `
  const fs = require('node:fs');
  const { withLabels } = require(${JSON.stringify(root)});
  const block = () => { fs.writeSync(1, 'ready\\n'); fs.readSync(0, Buffer.alloc(1), 0, 1, null); };
  ${setup}
`;

const stop = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.stdin.end('\n');
  });

const haveGdb = (() => {
  try {
    execFileSync('gdb', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('checkpoints of a labelled process, read from outside', () => {
  const expectedNames = [
    'outside any scope',
    'sync scope',
    'nested scope',
    'back in the outer scope',
    'after the sync scope',
    'after an await chain',
    'in a timer callback',
    'in an fs callback',
    'in an unlabelled continuation',
    ...Array.from({ length: 6 }, (_, i) => [0, 1, 2].map((s) => `request ${i} step ${s}`)).flat(),
    'worker w1',
    'main after worker w1',
    'worker w2',
    'main after worker w2',
    'done',
  ];
  const results = new Map();
  let childExit;
  let gdbCheck = null;

  beforeAll(async () => {
    const child = spawn(process.execPath, [path.join(fixtures, 'checkpoints.js')], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines = readline.createInterface({ input: child.stdout });
    for await (const line of lines) {
      const cp = JSON.parse(line);
      const one = await runReader(['inspect', String(child.pid), '--tid', String(cp.tid), '--json']);
      const all = cp.name.startsWith('worker') ? await runReader(['inspect', String(child.pid), '--json']) : null;
      results.set(cp.name, { cp, one, all, pid: child.pid });
      if (cp.name === 'sync scope' && haveGdb) {
        // The set's count, or (hooks off: the pointer is NULL) the Node.js
        // struct's gate, which node-context.test.js follows further in gdb.
        const second = cp.hooks
          ? 'p *(unsigned long*)((unsigned long)custom_labels_current_set + 8)'
          : 'p/x *(unsigned long*)&otel_thread_ctx_nodejs_v1';
        const gdb = execFileSync(
          'gdb',
          ['-p', String(child.pid), '-batch', '-nx', '-ex', 'set debuginfod enabled off',
            '-ex', 'p/x (unsigned long)custom_labels_current_set', '-ex', second],
          { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
        );
        gdbCheck = { gdb, hooks: cp.hooks, reader: labelsOf(one.stdout, cp.tid) };
      }
      child.stdin.write('\n');
    }
    childExit = await new Promise((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', r)));
  }, 120000);

  test('the fixture ran to its end through every checkpoint', () => {
    expect(childExit).toBe(0);
    // Requests interleave, so their checkpoints come in a mixed order.
    expect([...results.keys()].sort()).toEqual([...expectedNames].sort());
    expect([...results.keys()].slice(0, 10)).toEqual(expectedNames.slice(0, 10));
  });

  test.each(expectedNames)('%s', (name) => {
    const { cp, one } = results.get(name);
    expect(one.stderr).toBe('');
    expect(one.code).toBe(0);
    const thread = labelsOf(one.stdout, cp.tid);
    expect(thread.labels).toEqual(cp.expect);
    expect(thread.set === '0x0').toBe(cp.expect === null);
    // Where the labels came from: the TLS pointer the hooks switch, or (hooks
    // off) the walk through V8's continuation data; with both, they agree.
    if (cp.walk) {
      if (cp.expect === null) {
        expect(['gate-closed', 'no-frame', 'not-in-frame', 'detached']).toContain(thread.walk);
      } else {
        expect(thread.walk).toBe('found');
        expect(thread.walk_set).toBe(thread.set);
      }
    } else {
      // Nothing published for the walk (no AsyncContextFrame): the gate reads zero.
      expect(thread.walk).toBe('gate-closed');
    }
    expect(thread.via ?? 'tls').toBe(cp.hooks || cp.expect === null ? 'tls' : 'node-walk');
    expect(cp.hooks || cp.walk).toBe(true);
  });

  test('while a worker is stopped in its scope, only its thread shows its labels', () => {
    for (const w of ['w1', 'w2']) {
      const { cp, all, pid } = results.get(`worker ${w}`);
      const threads = jsonLines(all.stdout);
      expect(cp.tid).not.toBe(pid);
      for (const t of threads) {
        expect(t.labels).toEqual(t.tid === cp.tid ? { thread: w } : null);
      }
    }
  });

  testIf(haveGdb, 'gdb is not installed')('gdb sees the same label set pointer and count as the reader', () => {
    expect(gdbCheck).not.toBeNull();
    const [, pointer] = gdbCheck.gdb.match(/\$1 = (0x[0-9a-f]+)/);
    if (gdbCheck.hooks) {
      const [, count] = gdbCheck.gdb.match(/\$2 = (\d+)/);
      expect(pointer).toBe(gdbCheck.reader.set);
      expect(Number(count)).toBe(Object.keys(gdbCheck.reader.labels).length);
    } else {
      // Hooks off: no pointer, the gate open, and the reader's set walked.
      expect(pointer).toBe('0x0');
      expect(gdbCheck.gdb).toMatch(/\$2 = 0x[1-9a-f][0-9a-f]*/);
      expect(gdbCheck.reader.via).toBe('node-walk');
    }
  });
});

describe('inspect', () => {
  test('text output names the addon, the TLS model and each thread', async () => {
    const child = await startBlocked(blockAfter(`withLabels({ customer: 'acme', route: '/checkout' }, block);`));
    try {
      const { code, stdout, stderr } = await runReader(['inspect', String(child.pid)], { via: 'bin' });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toContain(`process ${child.pid}: ${addonPath} (ABI v1, static TLS, thread pointer -`);
      expect(stdout).toMatch(new RegExp(`\\n  ${child.pid}\\s+\\S+\\s+customer=acme route=/checkout\\n`));
      expect(stdout).toMatch(/\(none\)/);
    } finally {
      await stop(child);
    }
  });

  const deletedReason = 'a deleted file is only reachable through /proc/PID/map_files, which needs CAP_SYS_ADMIN (root)';
  testIf(hasCapability(CAP.SYS_ADMIN), deletedReason)('an addon file deleted or replaced since it was loaded (npm rebuild) is still read', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-deleted-'));
    const copy = path.join(dir, 'customlabels.node');
    fs.copyFileSync(addonPath, copy);
    const child = await startBlocked(`
      const fs = require('node:fs');
      const { createInstance } = require(${JSON.stringify(path.join(root, 'lib', 'core', 'instance.js'))});
      const { withLabels } = createInstance(require(${JSON.stringify(copy)})).api;
      fs.unlinkSync(${JSON.stringify(copy)});
      withLabels({ build: 'old' }, () => { fs.writeSync(1, 'ready\\n'); fs.readSync(0, Buffer.alloc(1), 0, 1, null); });
    `);
    try {
      const { code, stdout, stderr } = await runReader(['inspect', String(child.pid)]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toContain(`process ${child.pid}: ${copy} (deleted) (ABI v1, static TLS`);
      expect(stdout).toMatch(new RegExp(`\\n  ${child.pid}\\s+\\S+\\s+build=old\\n`));
    } finally {
      await stop(child);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('bytes that are not UTF-8 survive the JSON output (surrogateescape)', async () => {
    const child = await startBlocked(
      blockAfter(`withLabels({ raw: Buffer.from([0xff, 0x41, 0xc3]), 'clé': 'välue\\n"q"' }, block);`),
    );
    try {
      const { stdout } = await runReader(['inspect', String(child.pid), '--tid', String(child.pid), '--json']);
      const { labels } = labelsOf(stdout, child.pid);
      const bytes = [...labels.raw].map((ch) => {
        const c = ch.charCodeAt(0);
        return c >= 0xdc80 && c <= 0xdcff ? c - 0xdc00 : c;
      });
      expect(bytes).toEqual([0xff, 0x41, 0xc3]);
      expect(labels['clé']).toBe('välue\n"q"');
    } finally {
      await stop(child);
    }
  });

  test('--reader-limits parca shows what that agent keeps; the default flags it', async () => {
    const labels = {};
    for (let i = 0; i < 12; i++) labels[`k${i}`] = String(i);
    labels.k0 = 'v'.repeat(60);
    labels['a-key-that-is-longer-than-25-bytes'] = 'x';
    const child = await startBlocked(blockAfter(`withLabels(${JSON.stringify(labels)}, block);`));
    try {
      const all = labelsOf((await runReader(['inspect', String(child.pid), '--tid', String(child.pid), '--json'])).stdout, child.pid);
      expect(Object.keys(all.labels)).toHaveLength(13);
      expect(all.parca).toEqual(['only the first 10 of 13 labels are read', 'value of "k0" is cut to 53 bytes (60)']);
      const parca = labelsOf(
        (await runReader(['inspect', String(child.pid), '--tid', String(child.pid), '--json', '--reader-limits', 'parca'])).stdout,
        child.pid,
      );
      expect(Object.keys(parca.labels)).toHaveLength(10);
      expect(parca.labels.k0).toBe('v'.repeat(53));
      expect(parca.labels.k10).toBeUndefined();
      const text = (await runReader(['inspect', String(child.pid), '--tid', String(child.pid)])).stdout;
      expect(text).toContain('! Parca agent: value of "k0" is cut to 53 bytes (60)');
    } finally {
      await stop(child);
    }
  });

  test('dynamic TLS is followed through the DTV, and said', async () => {
    const child = await startBlocked(blockAfter(`withLabels({ tls: 'dynamic' }, block);`), {
      env: { GLIBC_TUNABLES: 'glibc.rtld.optional_static_tls=0' },
    });
    try {
      const text = await runReader(['inspect', String(child.pid)]);
      expect(text.stdout).toMatch(/dynamic TLS \(module \d+, offset 0x[0-9a-f]+, via the DTV\)/);
      const json = await runReader(['inspect', String(child.pid), '--json']);
      expect(labelsOf(json.stdout, child.pid).labels).toEqual({ tls: 'dynamic' });
      const check = await runReader(['check', String(child.pid)]);
      expect(check.code).toBe(1);
      expect(check.stdout).toContain('FAIL the TLS descriptor resolved to dynamic TLS');
    } finally {
      await stop(child);
    }
  });

  test('threads that come and go while reading are skipped, never fatal', async () => {
    // Every ptrace() call of the reader is logged by an LD_PRELOAD shim, so
    // the test sees the race it is about: a thread the reader listed that was
    // gone (ESRCH) or exiting (EPERM) when it came to stop or read it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-churn-'));
    const shim = path.join(dir, 'ptrace-log.so');
    execFileSync('g++', ['-x', 'c', '-shared', '-fPIC', '-O2', '-', '-o', shim, '-ldl'], { input: ptraceLogShim });
    const child = await startBlocked(`
      const { Worker } = require('node:worker_threads');
      const { withLabels } = require(${JSON.stringify(root)});
      const churn = () => { const w = new Worker('require(${JSON.stringify(root)}).withLabels({ w: "1" }, () => {})', { eval: true }); w.once('exit', churn); };
      for (let i = 0; i < 4; i++) churn();
      process.stdin.on('data', () => process.exit(0));
      require('node:fs').writeSync(1, 'ready\\n');
    `);
    const { ESRCH, EPERM } = os.constants.errno;
    // PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_GETREGS, PTRACE_GETREGSET (linux/ptrace.h).
    const readingRequests = [0x4206, 0x4207, 12, 0x4204];
    const raced = [];
    let runs = 0;
    try {
      // At least 15 reads, and on until one of them met a thread that went away.
      for (; runs < 15 || (raced.length === 0 && runs < 100); runs++) {
        const log = path.join(dir, `run-${runs}.log`);
        const r = await runReader(['inspect', String(child.pid), '--json'], { env: { LD_PRELOAD: shim, CUSTOMLABELS_PTRACE_LOG: log } });
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        expect(labelsOf(r.stdout, child.pid)).toBeDefined();
        const calls = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => l.split(' ').map(Number));
        expect(calls.length).toBeGreaterThan(0);
        const shown = new Set(jsonLines(r.stdout).map((t) => t.tid));
        for (const [request, tid, errno] of calls) {
          // Calls that stop or read a thread; a failed detach comes after the read.
          if (!readingRequests.includes(request) || (errno !== ESRCH && errno !== EPERM)) continue;
          // Skipped, not shown, and really a thread that went away.
          expect(shown.has(tid)).toBe(false);
          expect(tid).not.toBe(child.pid);
          raced.push({ run: runs, tid, errno });
        }
      }
      for (const { tid } of raced) expect(fs.existsSync(`/proc/${child.pid}/task/${tid}`)).toBe(false);
      expect(raced.length).toBeGreaterThan(0);
    } finally {
      await stop(child);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120000);
});

// An LD_PRELOAD library that logs each ptrace() call of the process it is
// loaded into as "<request> <tid> <errno or 0>" lines to $CUSTOMLABELS_PTRACE_LOG.
const ptraceLogShim = `
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <unistd.h>
long ptrace(enum __ptrace_request request, ...) {
  va_list ap;
  va_start(ap, request);
  pid_t pid = va_arg(ap, pid_t);
  void* addr = va_arg(ap, void*);
  void* data = va_arg(ap, void*);
  va_end(ap);
  long (*real)(enum __ptrace_request, pid_t, void*, void*) =
      (long (*)(enum __ptrace_request, pid_t, void*, void*))dlsym(RTLD_NEXT, "ptrace");
  long r = real(request, pid, addr, data);
  int saved = errno;
  const char* path = getenv("CUSTOMLABELS_PTRACE_LOG");
  if (path != NULL) {
    char line[64];
    int n = snprintf(line, sizeof line, "%d %d %d\\n", (int)request, (int)pid, r == -1 ? saved : 0);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) {
      if (write(fd, line, (size_t)n) < 0) {}
      close(fd);
    }
  }
  errno = saved;
  return r;
}
`;

describe('errors', () => {
  test('no such process: exit 3', async () => {
    const r = await runReader(['inspect', '4194000']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('customlabels: no such process: 4194000\n');
  });

  test('no such thread: exit 3', async () => {
    const child = await startBlocked(blockAfter('block();'));
    try {
      const r = await runReader(['inspect', String(child.pid), '--tid', '4194000']);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`no thread 4194000 in process ${child.pid}`);
    } finally {
      await stop(child);
    }
  });

  test('addon not loaded: exit 5', async () => {
    const child = spawn('sleep', ['30']);
    try {
      const r = await runReader(['inspect', String(child.pid)]);
      expect(r.code).toBe(5);
      expect(r.stderr).toContain('has not loaded customlabels.node');
    } finally {
      child.kill();
    }
  });

  const setprivReason = 'running the reader as user nobody (setpriv) needs CAP_SETUID and CAP_SETGID (root)';
  testIf(hasCapability(CAP.SETUID) && hasCapability(CAP.SETGID), setprivReason)('not permitted to read the process: exit 4', async () => {
    const child = await startBlocked(blockAfter('block();'));
    try {
      const r = await runReader(['inspect', String(child.pid)], { user: 'nobody' });
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/not permitted|Permission denied/);
    } finally {
      await stop(child);
    }
  });

  test('ABI version mismatch: exit 6 (and check flags the file)', async () => {
    // A copy of the addon whose custom_labels_abi_version says 2.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-v2-'));
    const copy = path.join(dir, 'customlabels.node');
    const bytes = fs.readFileSync(addonPath);
    const sym = execFileSync('readelf', ['-W', '--dyn-syms', addonPath], { encoding: 'utf8' })
      .split('\n')
      .find((l) => l.endsWith(' custom_labels_abi_version'));
    const vaddr = Number.parseInt(sym.trim().split(/\s+/)[1], 16);
    const load = execFileSync('readelf', ['-W', '-l', addonPath], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.trim().startsWith('LOAD'))
      .map((l) => l.trim().split(/\s+/).slice(1, 5).map((x) => Number.parseInt(x, 16)))
      .find(([, va, , filesz]) => vaddr >= va && vaddr < va + filesz);
    const offset = vaddr - load[1] + load[0];
    expect(bytes.readUInt32LE(offset)).toBe(1);
    bytes.writeUInt32LE(2, offset);
    fs.writeFileSync(copy, bytes);
    const child = await startBlocked(`
      require(${JSON.stringify(copy)});
      require('node:fs').writeSync(1, 'ready\\n'); require('node:fs').readSync(0, Buffer.alloc(1), 0, 1, null);`);
    try {
      const r = await runReader(['inspect', String(child.pid)]);
      expect(r.code).toBe(6);
      expect(r.stderr).toContain('ABI version mismatch: custom_labels_abi_version is 2');
      const check = await runReader(['check', copy]);
      expect(check.code).toBe(1);
      expect(check.stdout).toContain('FAIL custom_labels_abi_version is 1 in the file (2)');
    } finally {
      await stop(child);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('usage errors: exit 2', async () => {
    expect((await runReader([])).code).toBe(0); // prints help
    for (const args of [['nope'], ['inspect'], ['inspect', 'abc'], ['sample', '1', '--hz', '0'], ['inspect', '1', '--by', 'k']]) {
      const r = await runReader(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^customlabels: /);
    }
  });
});

describe('check', () => {
  test('the built addon follows the ABI', async () => {
    const r = await runReader(['check', addonPath], { via: 'bin' });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('FAIL');
    expect(r.stdout).toContain('the file follows the Custom Label ABI v1');
  });

  test('a running process is checked end to end', async () => {
    const child = await startBlocked(blockAfter(`withLabels({ a: '1' }, block);`));
    try {
      const r = await runReader(['check', String(child.pid)]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('ok   the TLS descriptor resolved to static TLS');
      expect(r.stdout).toContain('the process exposes labels as the Custom Label ABI v1 says');
    } finally {
      await stop(child);
    }
  });

  test('a file that is not a customlabels addon is reported in plain words', async () => {
    const r = await runReader(['check', process.execPath]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('FAIL file name matches');
    expect(r.stdout).toContain('FAIL .dynsym has custom_labels_abi_version');
  });
});

// TracerPid of thread `tid` of process `pid` (0: not traced), or null once
// the thread is gone.
function tracerOf(pid, tid) {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8').match(/^TracerPid:\s*(\d+)$/m)[1]);
  } catch {
    return null;
  }
}

// Polls until `tracer` holds thread `tid` of `pid` (ptrace-attached), for up
// to `ms`; calls `then()` right after the poll that saw it, and returns
// whether it was seen.
// The reader a `customlabels` wrapper started (undefined if none within 10 s).
async function readerOf(wrapper) {
  for (const deadline = Date.now() + 10000; Date.now() < deadline; ) {
    const [reader] = childrenOf(wrapper.pid);
    if (reader !== undefined) return reader;
    await new Promise((r) => setTimeout(r, 10));
  }
  return undefined;
}

async function whenTraced(pid, tid, tracer, ms, then = () => {}) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    for (let i = 0; i < 1000; i++) {
      if (tracerOf(pid, tid) === tracer) {
        then();
        return true;
      }
    }
    await new Promise((r) => setImmediate(r));
  }
  return false;
}

// Processes whose parent is `ppid`.
const childrenOf = (ppid) =>
  fs.readdirSync('/proc').filter((d) => {
    if (!/^\d+$/.test(d)) return false;
    try {
      return Number(fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === ppid;
    } catch {
      return false;
    }
  }).map(Number);

// Requests of many short promise jobs, interleaved job by job
// (test/js/fixtures/tenants-awaits.js): whatever a switch leaves installed
// between one job and the next must not move CPU from one tenant to another.
describe('sample: tenants 1:2:3 in requests of 50 promise jobs of ~20 µs, interleaved', () => {
  let child;
  let replies;
  const published = () =>
    new Promise((resolve) => {
      replies.once('line', (l) => resolve(JSON.parse(l)));
      child.stdin.write('\n');
    });
  beforeAll(async () => {
    child = spawn(process.execPath, [path.join(fixtures, 'tenants-awaits.js')], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
    replies = readline.createInterface({ input: child.stdout });
    // Past the first requests: the switch settles asynchronously.
    await sleep(300);
    await published();
  });
  afterAll(() => stop(child));

  test('the shares sampled from outside are within sampling error of the CPU each tenant\'s jobs used', async () => {
    // ~5000 samples of the thread: a share's sampling error is ~0.7 points
    // (one standard deviation). Windows are summed until they hold more
    // than 2500 samples of the thread (up to 4 windows): a window where the
    // target starved adds what it has, and says so, with how late the
    // reader was (CI runs suites side by side on 2 CPUs: a reader at
    // 1000 Hz, not favoured, was late at a fifth of its ticks there, which
    // bunches its samples but takes no tenant's side). A miss in what was summed
    // fails.
    const tenants = ['a', 'b', 'c'];
    const samples = { a: 0, b: 0, c: 0 };
    const spent = [0, 0, 0];
    let threadSamples = 0;
    let windows = 0;
    while (windows < 4 && threadSamples <= 2500) {
      windows += 1;
      const before = await published();
      // The target favoured too, for the window (helpers.favouredDuring).
      const r = await favouredDuring(child, () => runReader(['sample', String(child.pid), '--hz', '1000', '--duration', '5s', '--by', 'tenant', '--json'], { favour: true }));
      const after = await published();
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const rows = jsonLines(r.stdout).filter((row) => row.tid === child.pid);
      const late = lateWindow(rows[0]);
      if (rows[0].thread_samples + threadSamples <= 2500) console.log(`sample, window ${windows}: the target had ${rows[0].thread_samples} samples${late === null ? '' : ` (${late})`}; another window is added`);
      for (const row of rows) if (samples[row.value] !== undefined) samples[row.value] += row.samples;
      threadSamples += rows[0].thread_samples;
      tenants.forEach((t, i) => (spent[i] += after[t] - before[t]));
    }
    console.log(`sample: ${windows} window${windows === 1 ? '' : 's'}`);
    const truth = spent.map((ms) => ms / spent.reduce((x, y) => x + y));
    const labelled = tenants.reduce((n, t) => n + samples[t], 0);
    const shares = tenants.map((t) => samples[t] / labelled);
    expect(threadSamples).toBeGreaterThan(2500);
    expect(truth[0]).toBeLessThan(truth[1]);
    expect(truth[1]).toBeLessThan(truth[2]);
    // Within 2 points, or 4 standard errors of a share of that many
    // labelled samples where that is wider (sqrt(p(1-p)/n): 2.8 points at
    // 5000 samples and p = 1/2; a set on the wrong tenant moves a share by
    // 16 points or more).
    const allowed = truth.map((p) => Math.max(0.02, 4 * Math.sqrt((p * (1 - p)) / labelled)));
    console.log(`shares ${shares.map((x) => x.toFixed(3))}, truth ${truth.map((x) => x.toFixed(3))}, allowed ±${allowed.map((x) => x.toFixed(3))}, ${threadSamples} samples`);
    expect(shares.map((x, i) => Math.abs(x - truth[i]) <= allowed[i])).toEqual([true, true, true]);
    const { strategy } = await published();
    console.log(`switch ${strategy}`);
  }, 90000);
});

describe('sample', () => {
  let child;
  let replies;
  // Milliseconds each tenant's labels were published so far, as the fixture
  // measured them.
  const published = () =>
    new Promise((resolve) => {
      replies.once('line', (l) => resolve(JSON.parse(l)));
      child.stdin.write('\n');
    });
  beforeAll(async () => {
    child = spawn(process.execPath, [path.join(fixtures, 'tenants.js')], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
    replies = readline.createInterface({ input: child.stdout });
    await new Promise((resolve) => replies.once('line', resolve));
  });
  afterAll(() => stop(child));

  test('tenants spinning 1:2:3 are reported within a few points of the time their labels were on the CPU', async () => {
    // The truth is what the target measured over the same window (its run
    // time per tenant): on a busy machine it gets preempted and its real
    // shares drift from 1:2:3. A window is taken again (up to 3 in all) only
    // where the machine made it unfit, named by what it measured: the target
    // starved (fewer than half the samples it would get alone), its run
    // times out of the 1:2:3 order (preempted so much that the truth the
    // shares are held to is not the workload's), or the reader late at more
    // than 5% of its ticks (a reader that loses the CPU takes its missed
    // samples in a burst that all see one tenant). A miss in a fit window
    // fails at once.
    const tenants = ['a', 'b', 'c'];
    let shares;
    let truth;
    let threadSamples = 0;
    let attempts = 0;
    for (;;) {
      attempts += 1;
      const before = await published();
      // The target favoured too, for the window (helpers.favouredDuring).
      const r = await favouredDuring(child, () => runReader(['sample', String(child.pid), '--hz', '500', '--duration', '3s', '--by', 'tenant', '--json'], { favour: true }));
      const after = await published();
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const rows = jsonLines(r.stdout).filter((row) => row.tid === child.pid);
      const samples = Object.fromEntries(rows.map((row) => [row.value, row.samples]));
      threadSamples = rows[0].thread_samples;
      const spent = tenants.map((t) => after[t] - before[t]);
      truth = spent.map((ms) => ms / spent.reduce((x, y) => x + y));
      const labelled = tenants.reduce((n, t) => n + (samples[t] ?? 0), 0);
      shares = tenants.map((t) => (samples[t] ?? 0) / labelled);
      const ordered = truth[0] < truth[1] && truth[1] < truth[2];
      const unfit = ordered ? unfitWindow(rows[0], 750) : `the target's run times were out of 1:2:3 order (${truth.map((x) => x.toFixed(3)).join(', ')})`;
      if (unfit === null || attempts === 3) break;
      console.log(`sample, attempt ${attempts}: ${unfit}; taken again`);
    }
    console.log(`sample: ${attempts} attempt${attempts === 1 ? '' : 's'}`);
    expect(truth[0]).toBeLessThan(truth[1]);
    expect(truth[1]).toBeLessThan(truth[2]);
    expect(threadSamples).toBeGreaterThan(750);
    // Within 5 points (closeTo with 1 digit).
    expect(shares).toEqual(truth.map((x) => expect.closeTo(x, 1)));
  });

  test('the text table lists label sets, most frequent first', async () => {
    // ~400 samples: c (about 50%) leads b (about 33%) by more than 3 standard deviations.
    const r = await runReader(['sample', String(child.pid), '--hz', '200', '--duration', '2s'], { via: 'bin' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sampled process \d+ for \d+\.\d s at 200 Hz: \d+ on-CPU samples/);
    // The table of the main thread (other threads get tables of their own).
    const table = r.stdout.split(/^(?=thread \d+ )/m).find((t) => t.startsWith(`thread ${child.pid} `));
    const rows = table.split('\n').filter((l) => /^\s+\d+\.\d%/.test(l));
    const percents = rows.map((l) => Number.parseFloat(l));
    expect(percents).toEqual([...percents].sort((x, y) => y - x));
    expect(rows[0]).toContain('tenant=c route=/three');
  });

  test('a thread switching sets millions of times is only ever seen with a whole set or none', async () => {
    // Every switch is a store from JIT-compiled JS into the TLS slot; a torn
    // 8-byte store would show as an unreadable or foreign set.
    const target = await startBlocked(`
      const { withLabels } = require(${JSON.stringify(root)});
      const A = Object.freeze({ set: 'a' });
      const B = Object.freeze({ set: 'b', inner: 'yes' });
      const inner = () => 0;
      const outer = () => withLabels(B, inner);
      console.log('ready');
      for (;;) withLabels(A, outer);
    `);
    try {
      const r = await runReader(['sample', String(target.pid), '--hz', '1000', '--duration', '2s', '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const rows = jsonLines(r.stdout).filter((row) => row.tid === target.pid);
      const sorted = (labels) => (labels === null ? 'none' : JSON.stringify(Object.entries(labels).sort()));
      const seen = rows.map((row) => sorted(row.labels));
      const a = sorted({ set: 'a' });
      const b = sorted({ set: 'b', inner: 'yes' });
      expect(rows.reduce((n, row) => n + row.samples, 0)).toBeGreaterThan(500);
      for (const s of seen) expect([a, b, 'none']).toContain(s);
      expect(seen).toContain(b);
    } finally {
      target.kill('SIGKILL');
    }
  });

  test('signals reach the target while it is sampled: no thread waits for the reader', async () => {
    // The target spins in a labelled timer every 20 ms and reports the
    // longest gap between two ticks; signals arrive all through the sample.
    const target = await startBlocked(`
      const { withLabels } = require(${JSON.stringify(root)});
      let signals = 0, last = Date.now(), gap = 0;
      process.on('SIGUSR2', () => signals++);
      setInterval(() => withLabels({ spin: 'yes' }, () => {
        const now = Date.now(); gap = Math.max(gap, now - last); last = now;
        while (Date.now() < now + 15);
      }), 20);
      process.stdin.once('data', () => { console.log(JSON.stringify({ signals, gap })); process.exit(0); });
      setTimeout(() => console.log('ready'), 200);
    `);
    const lines = readline.createInterface({ input: target.stdout });
    const sampling = runReader(['sample', String(target.pid), '--hz', '200', '--duration', '3s', '--json']);
    const kicks = setInterval(() => process.kill(target.pid, 'SIGUSR2'), 150);
    const r = await sampling;
    clearInterval(kicks);
    const report = new Promise((resolve) => lines.once('line', (l) => resolve(JSON.parse(l))));
    target.stdin.write('\n');
    const { signals, gap } = await report;
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).some((row) => row.tid === target.pid && row.labels && row.labels.spin === 'yes')).toBe(true);
    expect(signals).toBeGreaterThan(5);
    // Held until the end of the sample it would be ~3 s; ~35 ms when free (a
    // loaded machine can add some hundreds).
    expect(gap).toBeLessThan(1000);
  });

  test('SIGTERM to the `customlabels` command ends a sample early with what it has', async () => {
    const started = Date.now();
    const wrapper = spawn(process.execPath, [binPath, 'sample', String(child.pid), '--duration', '20s', '--by', 'tenant']);
    let out = '';
    wrapper.stdout.on('data', (d) => (out += d));
    const exited = new Promise((r) => wrapper.once('exit', (code, signal) => r({ code, signal })));
    // Signalled once its reader is sampling (has held the target's thread).
    const reader = await readerOf(wrapper);
    expect(reader).toBeDefined();
    expect(await whenTraced(child.pid, child.pid, reader, 10000)).toBe(true);
    wrapper.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    const [, seconds] = out.match(/^sampled process \d+ for (\d+\.\d) s at 99 Hz/);
    expect(Number(seconds)).toBeLessThan(10);
    expect(Date.now() - started).toBeLessThan(20000);
    expect(out).toContain('tenant');
  });

  test('a `customlabels` command killed outright takes its reader with it: nothing holds the target', async () => {
    const wrapper = spawn(process.execPath, [binPath, 'sample', String(child.pid), '--duration', '30s']);
    const reader = await readerOf(wrapper);
    expect(reader).toBeDefined();
    expect(await whenTraced(child.pid, child.pid, reader, 10000)).toBe(true);
    wrapper.kill('SIGKILL');
    // The orphaned reader stops on its own (well before its 30 s) and lets go.
    const gone = () => !fs.existsSync(`/proc/${reader}`) || /^State:\s*Z/m.test(fs.readFileSync(`/proc/${reader}/status`, 'utf8'));
    for (const deadline = Date.now() + 5000; !gone() && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const stillThere = !gone();
    if (stillThere) process.kill(reader, 'SIGKILL');
    expect(stillThere).toBe(false);
    expect(tracerOf(child.pid, child.pid)).toBe(0);
  });

  test('a reader killed mid-sample never leaves the target stopped', async () => {
    const reader = spawn(readerPath, ['sample', String(child.pid), '--hz', '1000', '--duration', '20s']);
    const exited = new Promise((r) => reader.once('exit', r));
    // Killed right after it was seen holding the target's main thread.
    const killedWhileTracing = await whenTraced(child.pid, child.pid, reader.pid, 10000, () => reader.kill('SIGKILL'));
    if (!killedWhileTracing) reader.kill('SIGKILL');
    await exited;
    expect(killedWhileTracing).toBe(true);
    // Every thread is released and running (or sleeping) on its own.
    const held = () =>
      fs.readdirSync(`/proc/${child.pid}/task`).flatMap((tid) => {
        const state = fs.readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8').split(') ')[1][0];
        const tracer = tracerOf(child.pid, tid);
        return state === 't' || state === 'T' || tracer ? [{ tid, state, tracer }] : [];
      });
    for (const deadline = Date.now() + 2000; held().length > 0 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(held()).toEqual([]);
    // And it makes progress: its tenants keep spinning.
    const before = await published();
    await new Promise((r) => setTimeout(r, 200));
    const after = await published();
    expect(after.c).toBeGreaterThan(before.c);
  });
});
