'use strict';

// withLabels/currentLabels semantics on the calling thread. currentLabels()
// decodes what custom_labels_current_set points to, so every assertion here
// is about what an external reader sees.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { withLabels, currentLabels, supported } = require('../..');
const { addonPath, runNode, testIf } = require('./helpers');

const binding = require(addonPath);

// A label set read word by word through the raw ABI layout, as an external
// reader copies it, with nothing dropped or merged:
// { address, storage, count, capacity, labels: [{ key, value }] } where each
// string is { buf, len, bytes }. `word(address)` returns the 8 bytes there as
// a bigint, or null if unreadable.
function readRawSet(word, address) {
  const must = (at) => {
    const w = word(at);
    if (w === null) throw new Error(`0x${at.toString(16)} is not readable`);
    return w;
  };
  // `len` bytes at `buf`, read as whole words ending at buf + len: a string
  // sits after the set's label array, so reading up to 7 bytes before it
  // stays inside the set.
  const bytes = (buf, len) => {
    const out = Buffer.alloc(Number(len));
    for (let off = 0; off < out.length; off += 8) {
      const end = Math.min(off + 8, out.length);
      const w = Buffer.alloc(8);
      w.writeBigUInt64LE(must(buf + BigInt(end) - 8n));
      w.copy(out, off, 8 - (end - off), 8);
    }
    return out;
  };
  const storage = must(address);
  const count = must(address + 8n);
  const capacity = must(address + 16n);
  if (count > 100000n) throw new Error(`implausible count ${count}`);
  const str = (at) => {
    const len = must(at);
    const buf = must(at + 8n);
    return { buf, len, bytes: buf === 0n || len > 1n << 24n ? null : bytes(buf, len) };
  };
  const labels = [];
  for (let i = 0n; i < count; i++) {
    labels.push({ key: str(storage + 32n * i), value: str(storage + 32n * i + 16n) });
  }
  return { address, storage, count, capacity, labels };
}

// What makes `set` (from readRawSet) other than compact, as readers with a
// label budget need it: count == capacity == `expectedCount`, non-null keys
// and values, no duplicate key, and the header, the label array and every
// string inside one block no larger than they need (plus alignment).
function compactnessProblems(set, expectedCount) {
  const problems = [];
  if (set.storage === 0n) problems.push('storage is NULL');
  if (set.count !== BigInt(expectedCount)) problems.push(`count is ${set.count}, not ${expectedCount}`);
  if (set.capacity !== set.count) problems.push(`capacity ${set.capacity} != count ${set.count}`);
  let lo = set.address;
  let hi = set.address + 24n;
  let needed = 24n + 32n * set.count;
  const cover = (start, len) => {
    if (start < lo) lo = start;
    if (start + len > hi) hi = start + len;
  };
  cover(set.storage, 32n * set.count);
  const keys = new Set();
  set.labels.forEach(({ key, value }, i) => {
    if (key.buf === 0n) problems.push(`label ${i} has a NULL key`);
    if (value.buf === 0n) problems.push(`label ${i} has a NULL value`);
    if (key.buf !== 0n) cover(key.buf, key.len);
    if (value.buf !== 0n) cover(value.buf, value.len);
    needed += key.len + value.len;
    if (key.bytes !== null) {
      const k = key.bytes.toString('latin1');
      if (keys.has(k)) problems.push(`key ${JSON.stringify(k)} appears twice`);
      keys.add(k);
    }
  });
  // 64 bytes of header extras plus up to 7 bytes of padding per string.
  if (lo !== set.address) problems.push('a pointer leads before the set header');
  if (hi - lo > needed + 64n + 16n * set.count) {
    problems.push(`the set spans ${hi - lo} bytes for ${needed} bytes of content`);
  }
  return problems;
}

const publishedSet = () => {
  const address = binding.testing.currentSetAddress();
  expect(address).not.toBe(0n);
  return readRawSet(binding.testing.peekWord, address);
};

const asObject = (set) =>
  Object.fromEntries(set.labels.map(({ key, value }) => [key.bytes.toString(), value.bytes.toString()]));

// Asserts the published set is compact; returns it as {key: value}.
function expectCompactSet(expectedCount) {
  const set = publishedSet();
  expect(compactnessProblems(set, expectedCount)).toEqual([]);
  return asObject(set);
}

beforeEach(() => {
  expect(currentLabels()).toEqual({});
});

test('the addon is supported on this platform', () => {
  expect(supported).toBe(true);
});

test('no label set is published outside labelled work', () => {
  expect(binding.testing.currentSetAddress()).toBe(0n);
  expect(currentLabels()).toEqual({});
});

test('labels are published while fn runs and removed afterwards', () => {
  const seen = withLabels({ customer: 'acme', route: '/checkout' }, () => currentLabels());
  expect(seen).toEqual({ customer: 'acme', route: '/checkout' });
  expect(binding.testing.currentSetAddress()).toBe(0n);
});

test('returns what fn returns and passes a returned promise through', async () => {
  const obj = {};
  expect(withLabels({ a: '1' }, () => obj)).toBe(obj);
  const p = Promise.resolve(42);
  const returned = withLabels({ a: '1' }, () => p);
  expect(returned).toBe(p);
  await expect(withLabels({ a: '1' }, async () => 'async result')).resolves.toBe('async result');
});

test('nested scopes merge over the outer labels and the inner value wins', () => {
  withLabels({ tenant: 't1', route: '/a' }, () => {
    withLabels({ route: '/b', step: 'inner' }, () => {
      expect(currentLabels()).toEqual({ tenant: 't1', route: '/b', step: 'inner' });
    });
    expect(currentLabels()).toEqual({ tenant: 't1', route: '/a' });
  });
});

test('null or undefined removes an inherited key inside the scope only', () => {
  withLabels({ a: '1', b: '2', c: '3' }, () => {
    withLabels({ b: null, c: undefined, missing: null }, () => {
      expect(currentLabels()).toEqual({ a: '1' });
    });
    expect(currentLabels()).toEqual({ a: '1', b: '2', c: '3' });
  });
});

test('removing every label publishes no set at all', () => {
  withLabels({ a: '1' }, () => {
    withLabels({ a: null }, () => {
      expect(binding.testing.currentSetAddress()).toBe(0n);
      withLabels({ b: '2' }, () => expect(currentLabels()).toEqual({ b: '2' }));
    });
  });
});

test('an empty labels object keeps the current labels', () => {
  withLabels({ a: '1' }, () => {
    const before = binding.testing.currentSetAddress();
    withLabels({}, () => {
      expect(binding.testing.currentSetAddress()).toBe(before);
      expect(currentLabels()).toEqual({ a: '1' });
    });
  });
});

test('numbers, booleans and bigints are stringified as String(v) does', () => {
  const values = { int: 42, float: 1.5, neg0: -0, nan: NaN, inf: -Infinity, yes: true, no: false, big: 12345678901234567890n };
  const seen = withLabels(values, () => currentLabels());
  for (const [k, v] of Object.entries(values)) expect(seen[k]).toBe(String(v));
});

test('Buffer and Uint8Array values are published as raw bytes', () => {
  const bytes = new Uint8Array([0x68, 0x69, 0x00, 0x21]);
  const seen = withLabels({ buf: Buffer.from('héllo'), u8: bytes, sub: bytes.subarray(1, 2) }, () => currentLabels());
  expect(seen).toEqual({ buf: 'héllo', u8: 'hi\u0000!', sub: 'i' });
});

test('a Map works like an object', () => {
  const seen = withLabels(new Map([['a', '1'], ['b', 2]]), () => withLabels(new Map([['a', null]]), currentLabels));
  expect(seen).toEqual({ b: '2' });
});

test('keys and values keep unicode and NUL bytes exactly', () => {
  const labels = { 'clé 🔑': 'välue ✓', 'nul\u0000key': 'nul\u0000value', __proto__key: 'x' };
  expect(withLabels(labels, currentLabels)).toEqual(labels);
});

test('"__proto__" and "constructor" are ordinary keys', () => {
  const labels = JSON.parse('{"__proto__": "p", "constructor": "c", "hasOwnProperty": "h"}');
  const seen = withLabels(labels, currentLabels);
  expect(Object.keys(seen).sort()).toEqual(['__proto__', 'constructor', 'hasOwnProperty']);
  expect(Object.getOwnPropertyDescriptor(seen, '__proto__').value).toBe('p');
  // A plain object (its prototype is Object.prototype of the addon's realm).
  const proto = Object.getPrototypeOf(seen);
  expect(Object.getPrototypeOf(proto)).toBeNull();
  expect(typeof proto.hasOwnProperty).toBe('function');
});

test('1 MiB values and long keys are published whole', () => {
  const big = 'v'.repeat(1 << 20);
  const key = 'k'.repeat(10000);
  const seen = withLabels({ big, [key]: 'x' }, currentLabels);
  expect(seen.big.length).toBe(1 << 20);
  expect(seen[key]).toBe('x');
});

test('thousands of labels, nested and overridden', () => {
  const outer = {};
  for (let i = 0; i < 5000; i++) outer[`k${i}`] = String(i);
  const inner = { k0: 'zero', k4999: null, extra: 'e' };
  const seen = withLabels(outer, () => withLabels(inner, currentLabels));
  expect(Object.keys(seen)).toHaveLength(5000);
  expect(seen.k0).toBe('zero');
  expect(seen.k4999).toBeUndefined();
  expect(seen.k1234).toBe('1234');
  expect(seen.extra).toBe('e');
});

test('the previous labels come back when fn throws', () => {
  withLabels({ outer: 'yes' }, () => {
    const err = new Error('boom');
    expect(() => withLabels({ inner: 'yes' }, () => { throw err; })).toThrow(err);
    expect(currentLabels()).toEqual({ outer: 'yes' });
  });
});

test('a frozen labels object passed again gives the same labels, in every parent', () => {
  const labels = Object.freeze({ route: '/cached' });
  const a = withLabels(labels, () => [binding.testing.currentSetAddress(), currentLabels()]);
  const b = withLabels(labels, () => [binding.testing.currentSetAddress(), currentLabels()]);
  expect(b).toEqual(a);
  expect(a[1]).toEqual({ route: '/cached' });
  expect(withLabels({ tenant: 'x' }, () => withLabels(labels, currentLabels))).toEqual({ tenant: 'x', route: '/cached' });
  expect(withLabels({ tenant: 'y' }, () => withLabels(labels, currentLabels))).toEqual({ tenant: 'y', route: '/cached' });
});

test('a frozen object with a getter is read on every call', () => {
  let n = 0;
  const labels = Object.freeze({ get count() { n += 1; return String(n); } });
  expect(withLabels(labels, currentLabels)).toEqual({ count: '1' });
  expect(withLabels(labels, currentLabels)).toEqual({ count: '2' });
});

test('a mutable object is read on every call', () => {
  const labels = { v: 'a' };
  expect(withLabels(labels, currentLabels)).toEqual({ v: 'a' });
  labels.v = 'b';
  expect(withLabels(labels, currentLabels)).toEqual({ v: 'b' });
});

test('byte values are copied when the scope starts', () => {
  const bytes = Buffer.from('abc');
  withLabels(Object.freeze({ b: bytes }), () => {
    bytes[0] = 0x7a;
    expect(currentLabels()).toEqual({ b: 'abc' });
  });
  expect(withLabels(Object.freeze({ b: bytes }), currentLabels)).toEqual({ b: 'zbc' });
});

test('the published set is compact, with unique keys', () => {
  withLabels({ a: '1', b: '2', c: '3' }, () => {
    expect(expectCompactSet(3)).toEqual({ a: '1', b: '2', c: '3' });
    withLabels({ b: null, a: 'again', d: '4' }, () => {
      expect(expectCompactSet(3)).toEqual({ a: 'again', c: '3', d: '4' });
      // A key set again to the value it has is still one label.
      withLabels({ c: '3', a: 'again' }, () => expect(expectCompactSet(3)).toEqual({ a: 'again', c: '3', d: '4' }));
      withLabels({ c: null, d: null }, () => expect(expectCompactSet(1)).toEqual({ a: 'again' }));
    });
  });
});

test('the compactness check reads what a reader reads, so it catches a set that is not compact', () => {
  // A copy of a real published set in a fake memory image, then broken in
  // the ways a decoder that skips NULL keys and duplicates would hide.
  const image = new Map();
  const set = withLabels({ a: '1', b: '22', c: '333' }, () => {
    const real = publishedSet();
    const end = real.labels.reduce((m, { value }) => (value.buf + value.len > m ? value.buf + value.len : m), 0n);
    for (let at = real.address; at < end + 8n; at += 8n) image.set(at, binding.testing.peekWord(at));
    expect(real.address % 8n).toBe(0n);
    return real;
  });
  const fake = (edit) => {
    const copy = new Map(image);
    edit((at, w) => copy.set(at, w));
    // Reads of any alignment, from the aligned words of the image.
    const word = (at) => {
      const base = at & ~7n;
      const shift = 8n * (at - base);
      const [lo, hi] = [copy.get(base), copy.get(base + 8n)];
      if (lo === undefined || (shift !== 0n && hi === undefined)) return null;
      return shift === 0n ? lo : BigInt.asUintN(64, (lo >> shift) | (hi << (64n - shift)));
    };
    return readRawSet(word, set.address);
  };
  const label = (i) => set.storage + 32n * BigInt(i);
  expect(compactnessProblems(fake(() => {}), 3)).toEqual([]);
  expect(compactnessProblems(fake((poke) => poke(set.address + 16n, 4n)), 3)).toEqual(['capacity 4 != count 3']);
  expect(compactnessProblems(fake((poke) => poke(label(1) + 8n, 0n)), 3)).toEqual(['label 1 has a NULL key']);
  expect(compactnessProblems(fake((poke) => poke(label(2) + 8n, set.labels[0].key.buf)), 3)).toContain('key "a" appears twice');
  expect(compactnessProblems(fake((poke) => poke(set.address + 8n, 2n)), 3)).toEqual(['count is 2, not 3', 'capacity 3 != count 2']);
  // Value "1" of label 0 moved 4 KiB away from the rest of the set.
  const far = fake((poke) => {
    const at = set.address + 4096n;
    poke(at - 8n, 0n);
    poke(at, 0x31n);
    poke(label(0) + 24n, at);
  });
  expect(asObject(far)).toEqual({ a: '1', b: '22', c: '333' });
  expect(compactnessProblems(far, 3)).toEqual([
    expect.stringMatching(/^the set spans \d+ bytes for \d+ bytes of content$/),
  ]);
});

test('a large set with overrides and removals is compact too', () => {
  const outer = {};
  for (let i = 0; i < 600; i++) outer[`k${i}`] = String(i);
  const inner = { k0: 'zero', k599: null, k300: null, extra: 'e', empty: '' };
  withLabels(outer, () =>
    withLabels(inner, () => {
      const seen = expectCompactSet(600 - 2 + 2);
      expect(seen.k0).toBe('zero');
      expect(seen.extra).toBe('e');
      expect(seen.empty).toBe('');
      expect('k300' in seen).toBe(false);
    }),
  );
});

// In a process of its own: the interning state is the process's (shared by
// every test file a Jest worker ran before), and a file that sent many
// never-repeating labels would start this one with interning paused.
test('repeated labels reuse one set per parent, also after a phase of never-repeating labels', async () => {
  const { code, stdout, stderr } = await runNode(`
    const assert = require('node:assert');
    const { withLabels, currentLabels } = require('.');
    const binding = require(${JSON.stringify(addonPath)});
    const customers = ['acme', 'globex', 'initech', 'umbrella'];
    const routes = ['/a', '/b'];
    // Nested scopes whose labels repeat: 2 parents x 4 customers x 2 shapes.
    const repeating = (calls) => {
      const addresses = new Set();
      for (let i = 0; i < calls; i++) {
        const route = routes[i & 1];
        const customer = customers[(i >> 1) & 3];
        const n = i % 3 === 0 ? undefined : 'x';
        withLabels({ route }, () =>
          withLabels({ customer, n }, () => {
            assert.deepStrictEqual(currentLabels(), n === undefined ? { route, customer } : { route, customer, n });
            addresses.add(binding.testing.currentSetAddress());
          }),
        );
      }
      return addresses.size;
    };
    const first = repeating(2000);
    // Labels that never repeat, such as request ids.
    for (let i = 0; i < 40000; i++) {
      withLabels({ route: routes[i & 1], request: 'r' + i }, () => {
        if (i % 97 === 0) assert.deepStrictEqual(currentLabels(), { route: routes[i & 1], request: 'r' + i });
      });
    }
    // Repeating again: right at once, and one set per label combination
    // again after a while.
    let reusedAfter = -1;
    for (let round = 0; round < 400 && reusedAfter < 0; round++) {
      if (repeating(1024) <= 16) reusedAfter = round;
    }
    console.log(JSON.stringify({ first, reusedAfter }));
  `, { timeoutMs: 60000 });
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const { first, reusedAfter } = JSON.parse(stdout);
  expect(first).toBeLessThanOrEqual(16);
  expect(reusedAfter).toBeGreaterThanOrEqual(0);
});

// -ffast-math code (loaded as any shared library) sets denormals-are-zero and
// flush-to-zero for the thread. An address read as a double is a subnormal,
// so a switch that passed addresses through doubles would publish NULL.
testIf(process.arch === 'x64', 'sets MXCSR, which only x86-64 has')('labels stay right in a thread running with denormals-are-zero and flush-to-zero', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-daz-'));
  const lib = path.join(dir, 'daz.so');
  execFileSync('g++', ['-shared', '-fPIC', '-O2', '-x', 'c++', '-', '-o', lib], {
    input: '#include <xmmintrin.h>\n__attribute__((constructor)) static void daz() { _mm_setcsr(_mm_getcsr() | 0x8040); }\n',
  });
  const { code, stdout, stderr } = await runNode(
    `const { withLabels, currentLabels } = require('.');
     let wrong = 0;
     for (let i = 0; i < 20000; i++) {
       if (withLabels({ i: String(i % 100) }, currentLabels).i !== String(i % 100)) wrong++;
     }
     withLabels({ a: '1' }, async () => {
       await null;
       console.log(JSON.stringify({ wrong, afterAwait: currentLabels() }));
     });`,
    { env: { LD_PRELOAD: lib } },
  );
  fs.rmSync(dir, { recursive: true, force: true });
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toEqual({ wrong: 0, afterAwait: { a: '1' } });
});
