'use strict';

// The modules lib/core/thread.js composes, each on its own (no AsyncLocalStorage,
// and the slab writer against the real addon).

const { InternTable, MAX_SETS, WINDOW, PAUSE } = require('../../lib/core/intern');
const { FrozenCache } = require('../../lib/core/frozen-cache');
const { SlabWriter, SLAB } = require('../../lib/core/slab');
const { readLabels, LabelReader, Updates } = require('../../lib/core/labels');
const { LabelSet } = require('../../lib/core/label-set');
const { addonPath } = require('./helpers');

const updatesOf = (labels) => readLabels(labels, new Updates());
const fakeSet = () => new LabelSet(new ArrayBuffer(8), 0, 1n);

describe('InternTable', () => {
  test('the same labels over the same parent find the set remembered for them', () => {
    const table = new InternTable();
    const parent = fakeSet();
    expect(table.lookup(parent, updatesOf({ route: '/a', customer: 'acme' }))).toBeUndefined();
    const set = fakeSet();
    table.remember(set);
    expect(table.lookup(parent, updatesOf({ route: '/a', customer: 'acme' }))).toBe(set);
    // Another parent, another value, another order of keys: not the same set.
    expect(table.lookup(null, updatesOf({ route: '/a', customer: 'acme' }))).toBeUndefined();
    expect(table.lookup(parent, updatesOf({ route: '/a', customer: 'globex' }))).toBeUndefined();
    expect(table.lookup(parent, updatesOf({ customer: 'acme', route: '/a' }))).toBeUndefined();
  });

  test('a null result (every label removed) is remembered too; bytes and long labels are not interned', () => {
    const table = new InternTable();
    table.lookup(null, updatesOf({ a: null }));
    table.remember(null);
    expect(table.lookup(null, updatesOf({ a: null }))).toBeNull();
    expect(table.lookup(null, updatesOf({ a: Buffer.from('x') }))).toBeUndefined();
    table.remember(fakeSet());
    expect(table.lookup(null, updatesOf({ a: Buffer.from('x') }))).toBeUndefined();
    table.lookup(null, updatesOf({ a: 'x'.repeat(300) }));
    table.remember(fakeSet());
    expect(table.lookup(null, updatesOf({ a: 'x'.repeat(300) }))).toBeUndefined();
  });

  test('a window of lookups that never repeat pauses interning, and the pause doubles', () => {
    const table = new InternTable();
    let i = 0;
    const miss = () => {
      const found = table.lookup(null, updatesOf({ id: String(i++) }));
      table.remember(fakeSet());
      return found;
    };
    for (let k = 0; k < WINDOW; k++) miss();
    expect(table.paused).toBe(PAUSE);
    // While paused, even a repeat is not looked up.
    table.lookup(null, updatesOf({ id: '0' }));
    expect(table.pending).toBeNull();
    for (let k = 0; k < PAUSE - 1; k++) miss();
    expect(table.paused).toBe(0);
    for (let k = 0; k < WINDOW; k++) miss();
    expect(table.paused).toBe(2 * PAUSE);
  });

  test('the table starts over when full', () => {
    const table = new InternTable();
    const first = fakeSet();
    table.lookup(null, updatesOf({ k: 'first' }));
    table.remember(first);
    for (let k = 1; k < MAX_SETS; k++) {
      table.lookup(null, updatesOf({ k: `v${k}`, repeat: 'x' }));
      table.remember(fakeSet());
      // Keep the hit rate up so that interning never pauses.
      table.lookup(null, updatesOf({ k: 'first' }));
    }
    expect(table.count).toBe(MAX_SETS);
    table.lookup(null, updatesOf({ k: 'one more' }));
    table.remember(fakeSet());
    expect(table.count).toBe(0);
    expect(table.lookup(null, updatesOf({ k: 'first' }))).toBeUndefined();
  });
});

describe('FrozenCache', () => {
  test('caches frozen plain objects of primitives only, per parent', () => {
    const cache = new FrozenCache();
    const parent = fakeSet();
    const set = fakeSet();
    const frozen = Object.freeze({ a: '1' });
    cache.remember(parent, frozen, set, true);
    expect(cache.get(parent, frozen)).toBe(set);
    expect(cache.get(null, frozen)).toBeUndefined();
    expect(cache.get(parent, { a: '1' })).toBeUndefined();

    const notFrozen = { a: '1' };
    cache.remember(null, notFrozen, set, true);
    expect(cache.get(null, notFrozen)).toBeUndefined();
    const withBytes = Object.freeze({ a: Buffer.from('1') });
    cache.remember(null, withBytes, set, false);
    expect(cache.get(null, withBytes)).toBeUndefined();
    const withGetter = Object.freeze(Object.defineProperty({}, 'a', { get: () => '1', enumerable: true }));
    cache.remember(null, withGetter, set, true);
    expect(cache.get(null, withGetter)).toBeUndefined();
    const map = Object.freeze(new Map([['a', '1']]));
    cache.remember(null, map, set, true);
    expect(cache.get(null, map)).toBeUndefined();
  });
});

describe('LabelReader', () => {
  test('a read started from a getter during a read gets its own Updates', () => {
    const reader = new LabelReader();
    let inner;
    const outer = reader.read({
      get a() {
        inner = reader.read({ b: '2' });
        return '1';
      },
    });
    expect(inner).not.toBe(outer);
    expect([outer.keys.slice(0, outer.count), inner.keys.slice(0, inner.count)]).toEqual([['a'], ['b']]);
  });
});

describe('SlabWriter', () => {
  const binding = require(addonPath);

  test('consecutive sets share one slab at 8-aligned offsets; a full slab is replaced', () => {
    const writer = new SlabWriter(binding);
    const sets = [];
    for (let i = 0; i < 100; i++) sets.push(writer.write(null, updatesOf({ route: '/a', i: String(i) })));
    const slabsUsed = new Set(sets.map((s) => s.slab));
    expect(slabsUsed.size).toBeGreaterThan(1);
    expect(slabsUsed.size).toBeLessThan(10);
    for (const s of sets) {
      expect(s.slab.byteLength).toBe(SLAB);
      expect(s.offset % 8).toBe(0);
    }
    // Within one slab, each set starts after the previous one.
    const first = sets.filter((s) => s.slab === sets[0].slab);
    for (let k = 1; k < first.length; k++) expect(first[k].offset).toBeGreaterThan(first[k - 1].offset);
  });

  test('a set larger than a quarter slab gets its own buffer; no updates keep the parent', () => {
    const writer = new SlabWriter(binding);
    const parent = writer.write(null, updatesOf({ a: '1' }));
    const big = writer.write(parent, updatesOf({ big: 'x'.repeat(SLAB) }));
    expect(big.slab).not.toBe(parent.slab);
    expect(big.slab.byteLength).toBeGreaterThan(SLAB);
    expect(big.offset).toBe(0);
    expect(writer.write(parent, updatesOf({}))).toBe(parent);
    expect(writer.write(parent, updatesOf({ a: null }))).toBeNull();
  });
});
