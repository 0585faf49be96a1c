'use strict';

// Bad input: a TypeError with a stable code and a message naming what was
// expected and received; the labels are untouched afterwards.

const { withLabels, currentLabels } = require('../..');
const { tick, runNode } = require('./helpers');

const expectTypeError = (fn, code, pattern) => {
  let caught;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeDefined();
  // Errors may come from another realm under Jest: check name and code.
  expect(caught.name).toBe('TypeError');
  expect(caught.code).toBe(code);
  if (pattern) expect(caught.message).toMatch(pattern);
};

const cases = [
  ['labels is a string', () => withLabels('route=/x', () => {}), 'ERR_CUSTOMLABELS_INVALID_LABELS', /Expected a plain object or a Map for labels but received "route=\/x" of type string/],
  ['labels is null', () => withLabels(null, () => {}), 'ERR_CUSTOMLABELS_INVALID_LABELS', /received null of type null/],
  ['labels is undefined', () => withLabels(undefined, () => {}), 'ERR_CUSTOMLABELS_INVALID_LABELS', /received undefined of type undefined/],
  ['labels is an array', () => withLabels([['a', 'b']], () => {}), 'ERR_CUSTOMLABELS_INVALID_LABELS', /received an array of type object/],
  ['labels is a Set', () => withLabels(new Set(['a']), () => {}), 'ERR_CUSTOMLABELS_INVALID_LABELS', /an instance of Set/],
  ['labels is a number', () => withLabels(1, () => {}), 'ERR_CUSTOMLABELS_INVALID_LABELS', /received 1 of type number/],
  ['fn is missing', () => withLabels({ a: '1' }), 'ERR_CUSTOMLABELS_INVALID_CALLBACK', /Expected a function for fn but received undefined/],
  ['fn is a string', () => withLabels({ a: '1' }, 'fn'), 'ERR_CUSTOMLABELS_INVALID_CALLBACK', /received "fn" of type string/],
  ['empty key', () => withLabels({ '': 'v' }, () => {}), 'ERR_CUSTOMLABELS_INVALID_KEY', /Expected a non-empty string for a label key but received "" of type string/],
  ['Map with a number key', () => withLabels(new Map([[1, 'v']]), () => {}), 'ERR_CUSTOMLABELS_INVALID_KEY', /received 1 of type number/],
  ['Map with an object key', () => withLabels(new Map([[{}, 'v']]), () => {}), 'ERR_CUSTOMLABELS_INVALID_KEY', /an instance of Object/],
  ['object value', () => withLabels({ a: { b: 1 } }, () => {}), 'ERR_CUSTOMLABELS_INVALID_VALUE', /for the value of label "a" but received an instance of Object of type object/],
  ['array value', () => withLabels({ a: ['x'] }, () => {}), 'ERR_CUSTOMLABELS_INVALID_VALUE', /an array/],
  ['function value', () => withLabels({ a: () => 'x' }, () => {}), 'ERR_CUSTOMLABELS_INVALID_VALUE', /a function of type function/],
  ['symbol value', () => withLabels({ a: Symbol('x') }, () => {}), 'ERR_CUSTOMLABELS_INVALID_VALUE', /Symbol\(x\)/],
  ['Uint16Array value', () => withLabels({ a: new Uint16Array(2) }, () => {}), 'ERR_CUSTOMLABELS_INVALID_VALUE', /Uint16Array/],
  ['boxed string value', () => withLabels({ a: new String('x') }, () => {}), 'ERR_CUSTOMLABELS_INVALID_VALUE', /an instance of String/],
  ['labels is a Date', () => withLabels(new Date(0), () => {}), 'ERR_CUSTOMLABELS_INVALID_LABELS', /an instance of Date/],
  ['labels is a boxed string', () => withLabels(new String('ab'), () => {}), 'ERR_CUSTOMLABELS_INVALID_LABELS', /an instance of String/],
  ['labels is a typed array', () => withLabels(new Uint8Array([1]), () => {}), 'ERR_CUSTOMLABELS_INVALID_LABELS', /an instance of Uint8Array/],
  ['labels is an ArrayBuffer', () => withLabels(new ArrayBuffer(1), () => {}), 'ERR_CUSTOMLABELS_INVALID_LABELS', /an instance of ArrayBuffer/],
  ['labels is an Error', () => withLabels(new Error('x'), () => {}), 'ERR_CUSTOMLABELS_INVALID_LABELS', /an instance of Error/],
  [
    'detached buffer value',
    () => {
      const bytes = new Uint8Array(4);
      structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
      return withLabels({ a: bytes }, () => {});
    },
    'ERR_CUSTOMLABELS_INVALID_VALUE',
    /for the value of label "a" but received an instance of Uint8Array/,
  ],
  [
    'buffer value detached by a getter read after it',
    () => {
      const bytes = new Uint8Array(4);
      const labels = {
        a: bytes,
        get b() {
          structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
          return 'x';
        },
      };
      return withLabels(labels, () => {});
    },
    'ERR_CUSTOMLABELS_INVALID_VALUE',
    /for the value of label "a" but received an instance of Uint8Array/,
  ],
  ['Proxy value', () => withLabels({ a: new Proxy({}, {}) }, () => {}), 'ERR_CUSTOMLABELS_INVALID_VALUE', /a Proxy/],
];

describe.each(cases)('%s', (name, call, code, pattern) => {
  test('throws a TypeError with a stable code and a clear message', () => {
    expectTypeError(call, code, pattern);
  });

  test('leaves the current labels unchanged, also after the next await', async () => {
    await withLabels({ outer: 'kept' }, async () => {
      expectTypeError(call, code);
      expect(currentLabels()).toEqual({ outer: 'kept' });
      await tick();
      expect(currentLabels()).toEqual({ outer: 'kept' });
    });
    expect(currentLabels()).toEqual({});
    await tick();
    expect(currentLabels()).toEqual({});
  });
});

test('symbol-keyed properties are ignored, as Object.keys does', () => {
  expect(withLabels({ [Symbol('s')]: 'v', a: '1' }, currentLabels)).toEqual({ a: '1' });
});

test('enumerable properties inherited from a polluted Object.prototype are ignored', () => {
  Object.prototype.polluted = 'yes'; // eslint-disable-line no-extend-native
  try {
    expect(withLabels({ a: '1' }, currentLabels)).toEqual({ a: '1' });
  } finally {
    delete Object.prototype.polluted;
  }
});

test('fn is not called when the labels are invalid', () => {
  const fn = jest.fn();
  expect(() => withLabels({ a: {} }, fn)).toThrow();
  expect(fn).not.toHaveBeenCalled();
});

test('a value with a throwing toString is rejected without calling it', () => {
  const toString = jest.fn(() => { throw new Error('never'); });
  expectTypeError(() => withLabels({ a: { toString } }, () => {}), 'ERR_CUSTOMLABELS_INVALID_VALUE');
  expect(toString).not.toHaveBeenCalled();
});

test("a getter that throws lets its own error through and changes nothing", async () => {
  const mine = new Error('from getter');
  await withLabels({ outer: '1' }, async () => {
    const labels = { ok: 'x', get bad() { throw mine; } };
    expect(() => withLabels(labels, () => {})).toThrow(mine);
    expect(currentLabels()).toEqual({ outer: '1' });
    await tick();
    expect(currentLabels()).toEqual({ outer: '1' });
  });
});

test('a Proxy whose traps throw lets their error through', () => {
  const mine = new RangeError('trap');
  const proxy = new Proxy({}, { ownKeys() { throw mine; } });
  expect(() => withLabels(proxy, () => {})).toThrow(mine);
  expect(currentLabels()).toEqual({});
});

test('a Proxy with well-behaved traps works as labels', () => {
  const proxy = new Proxy({ a: '1' }, { get: (t, k) => (k === 'a' ? 'proxied' : t[k]) });
  expect(withLabels(proxy, currentLabels)).toEqual({ a: 'proxied' });
});

test('re-entrant withLabels calls from getters do not disturb the outer call', () => {
  const labels = {
    first: 'outer-1',
    get nested() {
      const inner = withLabels({ inside: 'getter', first: 'inner' }, currentLabels);
      expect(inner).toEqual({ inside: 'getter', first: 'inner' });
      // A big re-entrant call that forces the scratch buffer to grow.
      withLabels({ huge: 'x'.repeat(100000) }, () => {});
      return 'outer-2';
    },
    last: 'outer-3',
  };
  expect(withLabels(labels, currentLabels)).toEqual({ first: 'outer-1', nested: 'outer-2', last: 'outer-3' });
  expect(currentLabels()).toEqual({});
});

test('a fn that throws a non-Error value restores labels and rethrows it', () => {
  withLabels({ a: '1' }, () => {
    let caught;
    try {
      withLabels({ b: '2' }, () => { throw 'plain string'; });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBe('plain string');
    expect(currentLabels()).toEqual({ a: '1' });
  });
});

test('a byte value whose byteLength is redefined publishes its real bytes and runs no user code', () => {
  const bytes = Buffer.from('0123456789');
  let calls = 0;
  for (const lie of [1, 2 ** 32 - 1, -1]) {
    Object.defineProperty(bytes, 'byteLength', {
      configurable: true,
      get() {
        calls++;
        withLabels({ inner: 'x' }, () => {});
        return lie;
      },
    });
    expect(withLabels({ a: bytes, b: 'after' }, currentLabels)).toEqual({ a: '0123456789', b: 'after' });
  }
  expect(calls).toBe(0);
  expect(currentLabels()).toEqual({});
});

test('a very large label does not keep its scratch memory once published', async () => {
  const { code, stdout, stderr } = await runNode(
    `const { withLabels } = require('.');
     const buffers = () => { global.gc(); global.gc(); return process.memoryUsage().arrayBuffers; };
     withLabels({ warm: 'up' }, () => {});
     const before = buffers();
     withLabels({ big: 'x'.repeat(16 * 1024 * 1024) }, () => {});
     process.stdout.write(String((buffers() - before) / 1048576));`,
    { args: ['--expose-gc'] },
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
  // The 16 MiB set itself is freed with its scope; the encoder's grown
  // scratch buffer (32+ MiB) is given back too.
  expect(Number(stdout)).toBeLessThan(2);
});

test('huge values and many labels neither crash nor hang', () => {
  const many = {};
  for (let i = 0; i < 20000; i++) many[`key-${i}`] = i;
  const seen = withLabels(many, () => withLabels({ big: Buffer.alloc(8 << 20, 0x61) }, currentLabels));
  expect(Object.keys(seen)).toHaveLength(20001);
  expect(seen.big.length).toBe(8 << 20);
});
