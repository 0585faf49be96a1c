'use strict';

// The OTEP 4719 process context of a live process, read from outside by the
// OTEP's reading protocol implemented here on its own (/proc/<pid>/maps for
// the OTEL_CTX mapping, /proc/<pid>/mem for the header and payload, the
// timestamp read before and after) and decoded by protoc with the
// OpenTelemetry proto shapes (test/proto/process_context.proto): no code of the addon or of
// the reader is involved on the reading side.

const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { root, testIf } = require('./helpers');

const hasProtoc = (() => {
  try {
    execFileSync('protoc', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

// A child that publishes labels with the keys it reads from stdin, one line
// each, and answers "ok" after each.
function startChild() {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const { withLabels } = require(${JSON.stringify(root)});
       const rl = require('node:readline').createInterface({ input: process.stdin });
       rl.on('line', (key) => withLabels({ [key]: 'v' }, () => process.stdout.write('ok\\n')));
       process.stdout.write('ready\\n');`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    child,
    next: async () => (await lines.next()).value,
    send: async (key) => {
      child.stdin.write(`${key}\n`);
      return (await lines.next()).value;
    },
  };
}

function findMapping(pid) {
  for (const line of fs.readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
    const m = line.match(/^([0-9a-f]+)-[0-9a-f]+ (\S{4}) \S+ \S+ \S+\s+(.*)$/);
    if (m && /^(\/memfd:OTEL_CTX|\[anon_shmem:OTEL_CTX\]|\[anon:OTEL_CTX\])/.test(m[3])) {
      return { address: BigInt(`0x${m[1]}`), perms: m[2], name: m[3] };
    }
  }
  return null;
}

function readMem(fd, address, length) {
  const buf = Buffer.alloc(length);
  const n = fs.readSync(fd, buf, 0, length, address);
  if (n !== length) throw new Error(`short read at ${address.toString(16)}`);
  return buf;
}

// The OTEP 4719 reading protocol; returns {publishedAt, payload, attempts}.
function readProcessContext(pid, address) {
  const fd = fs.openSync(`/proc/${pid}/mem`, 'r');
  try {
    for (let attempt = 1; attempt <= 100; attempt++) {
      const header = readMem(fd, address, 32);
      expect(header.subarray(0, 8).toString('latin1')).toBe('OTEL_CTX');
      expect(header.readUInt32LE(8)).toBe(2);
      const publishedAt = header.readBigUInt64LE(16);
      if (publishedAt === 0n) continue; // being updated
      const size = header.readUInt32LE(12);
      expect(size).toBeGreaterThan(0);
      expect(size).toBeLessThanOrEqual(65536);
      const payload = readMem(fd, header.readBigUInt64LE(24), size);
      if (readMem(fd, address + 16n, 8).readBigUInt64LE(0) !== publishedAt) continue;
      return { publishedAt, payload, attempts: attempt };
    }
    throw new Error('no consistent read in 100 attempts');
  } finally {
    fs.closeSync(fd);
  }
}

function protocDecode(payload) {
  return execFileSync(
    'protoc',
    [
      `--proto_path=${path.join(root, 'test', 'proto')}`,
      '--decode=opentelemetry.proto.processcontext.v1development.ProcessContext',
      'process_context.proto',
    ],
    { input: payload, encoding: 'utf8' },
  );
}

// The key map's strings, in order, from protoc's text output.
function keyMap(text) {
  const at = text.indexOf('key: "threadlocal.attribute_key_map"');
  expect(at).toBeGreaterThanOrEqual(0);
  return [...text.slice(at).matchAll(/string_value: "([^"]*)"/g)].map((m) => m[1]);
}

testIf(hasProtoc, 'protoc is not installed (apt-get install protobuf-compiler)')(
  'a live process context: found by name, read by the protocol, decoded by protoc, updated when a key is appended',
  async () => {
    const c = startChild();
    try {
      expect(await c.next()).toBe('ready');
      // Nothing is published before the first label set.
      expect(findMapping(c.child.pid)).toBeNull();
      expect(await c.send('route')).toBe('ok');
      const mapping = findMapping(c.child.pid);
      expect(mapping).not.toBeNull();
      expect(mapping.perms).toBe('rw-p'); // not executable, private
      const first = readProcessContext(c.child.pid, mapping.address);
      const text = protocDecode(first.payload);
      expect(text).toMatch(/key: "threadlocal.schema_version"\s+value \{\s+string_value: "tlsdesc_v1_dev"/);
      expect(keyMap(text)).toEqual(['route']);

      // A new key: republished (later timestamp) before any record uses it.
      expect(await c.send('tenant')).toBe('ok');
      const second = readProcessContext(c.child.pid, mapping.address);
      expect(second.publishedAt).toBeGreaterThan(first.publishedAt);
      expect(keyMap(protocDecode(second.payload))).toEqual(['route', 'tenant']);
      // A key seen before: no update.
      expect(await c.send('route')).toBe('ok');
      expect(readProcessContext(c.child.pid, mapping.address).publishedAt).toBe(second.publishedAt);
      // Still one mapping.
      const all = fs.readFileSync(`/proc/${c.child.pid}/maps`, 'utf8').split('\n').filter((l) => l.includes('OTEL_CTX'));
      expect(all).toHaveLength(1);
    } finally {
      c.child.kill();
    }
  },
);

testIf(hasProtoc, 'protoc is not installed (apt-get install protobuf-compiler)')(
  'read while keys are being appended, every consistent read decodes and the key map only grows',
  async () => {
    const c = startChild();
    try {
      expect(await c.next()).toBe('ready');
      expect(await c.send('k0')).toBe('ok');
      const { address } = findMapping(c.child.pid);
      let previous = ['k0'];
      let retried = 0;
      for (let i = 1; i <= 60; i++) {
        c.child.stdin.write(`k${i}\n`); // appended while we read
        const r = readProcessContext(c.child.pid, address);
        if (r.attempts > 1) retried++;
        const keys = keyMap(protocDecode(r.payload));
        expect(keys.slice(0, previous.length)).toEqual(previous);
        previous = keys;
        expect(await c.next()).toBe('ok');
      }
      expect(keyMap(protocDecode(readProcessContext(c.child.pid, address).payload))).toHaveLength(61);
      // Not asserted (timing): how often a read met an update in progress.
      process.stderr.write(`process-context: ${retried} of 60 reads retried\n`);
    } finally {
      c.child.kill();
    }
  },
);
