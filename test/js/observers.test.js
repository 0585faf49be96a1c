'use strict';

// lib/core/observers.js: the observer point of a thread's state, the one
// way code outside core follows it (customlabels/pprof does). Its contract:
// onSwitch(fn) is told each set installed, right after the switch and on
// the thread (hooks on: every scope's way in and out, every continuation);
// an observer that throws is stopped with one warning and never reaches the
// app; onFrame(fn) puts entries into every frame a scope makes before it is
// current (AsyncContextFrame lines); each returns the function that stops
// it; current(), labelsOf() and currentFrame() read the thread's state.
// Core calls its observers and nothing else of theirs: no function of
// lib/core names an integration (test/js/layering.test.js).

const { AsyncLocalStorage } = require('node:async_hooks');
const { withLabels, currentLabels } = require('../../lib');
const { observers } = require('../../lib/core');
const { runNode } = require('./helpers');

const tick = () => new Promise((resolve) => setImmediate(resolve));
// The labels of each set an observer saw (null: none current).
const labelsSeen = (seen) => seen.map((set) => (set === null ? null : observers.labelsOf(set)));

const hooked = observers.hooks();

(hooked ? describe : describe.skip)('onSwitch, with hooks on', () => {
  // (In a process of its own: the observer hears the whole thread, and
  // Jest's worker may still run an earlier file's continuations, such as a
  // server's closing sockets under their requests' labels.)
  test('is told each set as it becomes current, the way in and out, and the switches of continuations', async () => {
    const r = await runNode(`
      const { withLabels, currentLabels } = require('.');
      const { observers } = require('./lib/core');
      const tick = () => new Promise((resolve) => setImmediate(resolve));
      const seen = [];
      const stop = observers.onSwitch((set) => seen.push(set));
      const inside = [];
      (async () => {
        try {
          await withLabels({ tenant: 'a' }, async () => {
            inside.push(observers.labelsOf(observers.current()));
            withLabels({ tenant: 'b' }, () => {});
            await tick();
            inside.push(currentLabels());
          });
          await tick();
        } finally {
          stop();
        }
        const labels = seen.map((set) => (set === null ? null : observers.labelsOf(set)));
        console.log(JSON.stringify({ inside, labels }));
      })();`);
    expect(r.stderr).toBe('');
    const { inside, labels } = JSON.parse(r.stdout);
    expect(inside).toEqual([{ tenant: 'a' }, { tenant: 'a' }]);
    // In, the nested scope in and out, back after the await, out.
    expect(labels.slice(0, 3)).toEqual([{ tenant: 'a' }, { tenant: 'b' }, { tenant: 'a' }]);
    expect(labels).toContainEqual(null);
    // Whatever it saw was current when it saw it: never a set of another scope.
    for (const l of labels) expect([null, { tenant: 'a' }, { tenant: 'b' }]).toContainEqual(l);
    expect(labels.filter((l) => l !== null && l.tenant === 'a').length).toBeGreaterThanOrEqual(3);
  });

  test('stop() stops it, once and for all; two observers are both told, in order', () => {
    const first = [];
    const second = [];
    const stopFirst = observers.onSwitch((set) => first.push(set));
    const stopSecond = observers.onSwitch((set) => second.push(set));
    withLabels({ n: '1' }, () => {});
    stopFirst();
    stopFirst();
    withLabels({ n: '2' }, () => {});
    stopSecond();
    withLabels({ n: '3' }, () => {});
    expect(labelsSeen(first)).toEqual([{ n: '1' }, null]);
    expect(labelsSeen(second)).toEqual([{ n: '1' }, null, { n: '2' }, null]);
  });

  // (In a process of its own: the thread's core, and the warnings it emits,
  // belong to the first of Jest's module registries that loaded it.)
  test('an observer that throws is stopped with one warning, and the scope runs as it would', async () => {
    const r = await runNode(`
      const { withLabels, currentLabels } = require('.');
      const { observers } = require('./lib/core');
      const warnings = [];
      process.on('warning', (w) => warnings.push([w.code, w.message]));
      let calls = 0;
      observers.onSwitch(() => {
        calls += 1;
        throw new Error('observer failed');
      });
      const out = [withLabels({ k: 'v' }, () => currentLabels()), withLabels({ k: 'w' }, () => currentLabels())];
      setImmediate(() => console.log(JSON.stringify({ out, calls, warnings })));`);
    expect(JSON.parse(r.stdout)).toEqual({
      out: [{ k: 'v' }, { k: 'w' }],
      calls: 1,
      warnings: [['CUSTOMLABELS_OBSERVER', 'customlabels: an observer of label switches threw (observer failed) and was stopped']],
    });
  });
});

if (!hooked) {
  test('without hooks nothing switches, and onSwitch is told nothing', () => {
    const seen = [];
    const stop = observers.onSwitch((set) => seen.push(set));
    withLabels({ k: 'v' }, () => expect(currentLabels()).toEqual({ k: 'v' }));
    stop();
    expect(seen).toEqual([]);
  });
}

describe('onFrame', () => {
  const extra = new AsyncLocalStorage();

  test('puts its entries into every frame a scope makes, before it is current (or says why it cannot)', async () => {
    const stop = observers.onFrame((frame, store) => frame.set(extra, store === undefined ? undefined : 'observed'));
    if (typeof stop === 'string') {
      expect(stop).toBe('AsyncLocalStorage does not run on AsyncContextFrame here');
      expect(observers.currentFrame()).toBeUndefined();
      return;
    }
    try {
      expect(extra.getStore()).toBeUndefined();
      const inside = await withLabels({ k: 'v' }, async () => {
        const first = extra.getStore();
        await tick();
        // Carried by the frame to the continuation, as its own store is.
        return [first, extra.getStore(), observers.currentFrame() !== undefined];
      });
      expect(inside).toEqual(['observed', 'observed', true]);
      expect(extra.getStore()).toBeUndefined();
    } finally {
      stop();
    }
    withLabels({ k: 'v' }, () => expect(extra.getStore()).toBeUndefined());
  });
});

test('current() and labelsOf() read the set the scope made; none outside', () => {
  expect(observers.current()).toBeNull();
  withLabels({ a: '1', b: '2' }, () => {
    expect(observers.labelsOf(observers.current())).toEqual({ a: '1', b: '2' });
  });
  expect(observers.current()).toBeNull();
});
