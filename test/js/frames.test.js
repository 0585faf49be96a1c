'use strict';

// lib/core/frames.js: the frames a scope makes itself (one per scope, where
// AsyncLocalStorage#run makes two; for customlabels/pprof, with the
// profiler's entry put into them) behave as AsyncLocalStorage#run and
// #enterWith make them, entry for entry, whatever else runs inside: what
// the app's own stores see never changes because customlabels made the
// frame.

const { AsyncLocalStorage, AsyncResource } = require('node:async_hooks');
const { findFrames } = require('../../lib/core/frames');
const { withLabels, currentLabels } = require('../..');

const frames = findFrames();
// Without AsyncContextFrame the test below is what holds (CI runs the
// frames under Node.js 26, 24 and 22 with its flag).
const onFrames = frames.reason === undefined ? describe : () => {};

if (frames.reason !== undefined) {
  test(`without AsyncContextFrame (Node.js ${process.version}), findFrames() says why`, () => {
    expect(frames.reason).toBe('AsyncLocalStorage does not run on AsyncContextFrame here');
  });
}

onFrames('frames made by a scope (AsyncContextFrame lines)', () => {
  const ours = new AsyncLocalStorage();
  const extra = new AsyncLocalStorage();
  const app = new AsyncLocalStorage();
  const add = (frame, store) => frame.set(extra, store === undefined ? undefined : `extra of ${store}`);

  // What every storage reads at each step, with `run` the way in and out.
  function trace(run) {
    const seen = [];
    const look = (step) => seen.push([step, ours.getStore(), extra.getStore(), app.getStore()]);
    app.run('app', () => {
      look('before');
      run('a', () => {
        look('inside');
        app.enterWith('set inside'); // Node lets this outlive the scope
        run('b', () => look('nested'));
        look('after nested');
      });
      look('after');
    });
    return seen;
  }

  test('a scope reads as AsyncLocalStorage#run makes it, its added entries too, and the way out is the same', () => {
    const made = trace((store, fn) => frames.run(ours, store, fn, add));
    const node = trace((store, fn) => ours.run(store, () => extra.run(`extra of ${store}`, fn)));
    expect(made).toEqual(node);
    expect(made).toEqual([
      ['before', undefined, undefined, 'app'],
      ['inside', 'a', 'extra of a', 'app'],
      ['nested', 'b', 'extra of b', 'set inside'],
      ['after nested', 'a', 'extra of a', 'set inside'],
      // Node's run restores by copying the frame current on the way out, so
      // enterWith inside outlives it; a frame customlabels makes does too.
      ['after', undefined, undefined, 'set inside'],
    ]);
  });

  test('a scope makes one frame: on the way out the frame that was current is current again, itself, with what another carrier put into it', () => {
    extra.run('theirs', () => {
      const before = frames.current();
      frames.run(ours, 'a', () => {
        expect(frames.current()).not.toBe(before);
        expect(extra.getStore()).toBe('extra of a');
      }, add);
      expect(frames.current()).toBe(before);
      // (A copy with the entries set back by `add`, which sets its entry
      // from the scope's store alone, would read undefined.)
      expect(extra.getStore()).toBe('theirs');
      // A frame made and left inside (an AsyncResource's scope, a nested
      // scope) leaves the scope's own current at its end: the same.
      const resource = new AsyncResource('CUSTOMLABELS_TEST', { requireManualDestroy: true });
      frames.run(ours, 'b', () => {
        resource.runInAsyncScope(() => frames.run(ours, 'c', () => {}, add));
      }, add);
      expect(frames.current()).toBe(before);
    });
  });

  test('a storage disabled inside stays disabled after the scope, as after AsyncLocalStorage#run', () => {
    const seen = (run) => {
      const other = new AsyncLocalStorage();
      return other.run('other', () => {
        run('a', () => other.disable());
        return other.getStore();
      });
    };
    expect(seen((store, fn) => frames.run(ours, store, fn, add))).toBeUndefined();
    expect(seen((store, fn) => ours.run(store, fn))).toBeUndefined();
  });

  test('withLabels makes one frame where AsyncLocalStorage#run makes two: the frame current before is current after it', () => {
    const app = new AsyncLocalStorage();
    // (The thread's first scope decides its mode first, whose probes run
    // scopes of their own.)
    withLabels({ k: 'v' }, () => {});
    app.run('app', () => {
      const before = frames.current();
      withLabels({ k: 'v' }, () => {
        expect(currentLabels()).toEqual({ k: 'v' });
        withLabels({ n: '1' }, () => expect(currentLabels()).toEqual({ k: 'v', n: '1' }));
      });
      expect(frames.current()).toBe(before);
      expect(currentLabels()).toEqual({});
      expect(app.getStore()).toBe('app');
    });
  });

  test('a throw inside still restores, and what was current is not run again (same store: no new frame)', () => {
    const seen = [];
    expect(() =>
      frames.run(ours, 'x', () => {
        throw new Error('boom');
      }, add),
    ).toThrow('boom');
    expect(ours.getStore()).toBeUndefined();
    frames.run(ours, 'y', () => {
      const frame = frames.current();
      frames.run(ours, 'y', () => seen.push(frames.current() === frame), () => seen.push('added'));
    }, add);
    expect(seen).toEqual([true]);
  });

  test('continuations carry the frame made, entries included', async () => {
    const seen = await frames.run(ours, 'c', async () => {
      await new Promise((r) => setTimeout(r, 1));
      await null;
      return [ours.getStore(), extra.getStore()];
    }, add);
    expect(seen).toEqual(['c', 'extra of c']);
  });

  test('enter() is AsyncLocalStorage#enterWith, with the entries', () => {
    const seen = app.run('app', () => {
      frames.enter(ours, 'e', add);
      return [ours.getStore(), extra.getStore(), app.getStore()];
    });
    expect(seen).toEqual(['e', 'extra of e', 'app']);
  });
});
