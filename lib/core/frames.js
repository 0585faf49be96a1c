'use strict';

// Node.js's AsyncContextFrame, where AsyncLocalStorage runs on it (Node.js
// 24+, 22 with --experimental-async-context-frame): the Map that V8 carries
// from continuation to continuation as its continuation-preserved embedder
// data, one entry per AsyncLocalStorage. `als.run(store, fn)` makes a new
// frame (a copy of the current one with one entry changed), makes it
// current, and on the way out makes another copy with the entry set back.
//
// findFrames() gives scopes (lib/core/thread.js) their frames: one per
// `run`, where AsyncLocalStorage#run makes two (on the way out the frame
// that was current is made current again, not copied, where nothing inside
// changed what is current: a Map copy saved per scope, about half of what
// a run costs), and a way to put more than their own entry into the frame
// they make, before V8 carries it anywhere (lib/core/observers.js onFrame:
// whatever else keeps its context on the frame), at the cost of a Map store
// instead of another frame. The class is reached
// through the frame an AsyncResource keeps (the own symbol whose value maps
// a storage to its store) and checked by what it does, never by version.

const { AsyncLocalStorage, AsyncResource } = require('node:async_hooks');

// { run(als, store, fn, add), enter(als, store, add), current() } or
// { reason } where frames cannot be made here. `add(frame, store)` puts its
// entries into each frame made, before the frame is current.
let found; // (one probe per realm)
function findFrames() {
  found ??= probeFrames();
  return found;
}

function probeFrames() {
  const storage = new AsyncLocalStorage();
  const token = {};
  let Frame = null;
  try {
    const resource = storage.run(token, () => new AsyncResource('CUSTOMLABELS_FRAMES', { requireManualDestroy: true }));
    for (const symbol of Object.getOwnPropertySymbols(resource)) {
      const value = resource[symbol];
      if (value !== null && typeof value === 'object' && typeof value.get === 'function' && value.get(storage) === token) {
        Frame = Object.getPrototypeOf(value).constructor;
      }
    }
    resource.emitDestroy(); // (async_hooks tools see it end)
  } catch {
    Frame = null;
  }
  if (Frame === null) return { reason: 'AsyncLocalStorage does not run on AsyncContextFrame here' };
  if (typeof Frame.current !== 'function' || typeof Frame.set !== 'function') {
    return { reason: 'AsyncContextFrame has no current() and set() here' };
  }
  const make = (als, store, add) => {
    const frame = new Frame(als, store);
    if (add !== null) add(frame, store);
    return frame;
  };
  const frames = {
    current: () => Frame.current(),
    run(als, store, fn, add) {
      const priorStore = als.getStore();
      if (priorStore === store) return fn();
      const prior = Frame.current();
      const frame = make(als, store, add);
      const entries = frame.size;
      Frame.set(frame);
      try {
        return fn();
      } finally {
        // As AsyncLocalStorage#run leaves it: the frame current now, with
        // the storage's entry set back. Where that is still the frame made
        // here, as made (nothing inside left another current, and no
        // storage was disabled, which deletes its entry from the current
        // frame in place: almost always), its copy would hold what `prior`
        // holds, so `prior` is current again, uncopied: a scope makes one
        // frame, not two.
        Frame.set(Frame.current() === frame && frame.size === entries ? prior : make(als, priorStore, add));
      }
    },
    enter(als, store, add) {
      Frame.set(make(als, store, add));
    },
  };
  // Checked by what it does: inside, the storage reads its store and an
  // entry added reads its own; on the way out, both read what they read
  // before.
  const extra = new AsyncLocalStorage();
  try {
    const outer = {};
    const seen = [];
    storage.run(outer, () => {
      extra.enterWith(outer);
      frames.run(storage, token, () => seen.push(storage.getStore(), extra.getStore()), (frame, store) => frame.set(extra, store));
      seen.push(storage.getStore(), extra.getStore());
    });
    if (seen[0] !== token || seen[1] !== token || seen[2] !== outer || seen[3] !== outer) throw new Error();
  } catch {
    return { reason: 'a frame made here does not carry its entries' };
  } finally {
    storage.disable();
    extra.disable();
  }
  return frames;
}

module.exports = { findFrames };
