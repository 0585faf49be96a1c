'use strict';

// The observer point of a thread's state (lib/core/thread.js): what code
// outside core may follow of it (another carrier of the current context,
// such as an in-process profiler's), without core knowing who. Not public
// API; test/js/observers.test.js holds its contract.
//
//   onSwitch(fn)     fn(set or null) right after the thread's TLS pointers
//                    were switched to `set`: with hooks on, at every
//                    continuation and at every scope's way in and out;
//                    synchronously, on the thread, on customlabels' hottest
//                    path. fn may call out (store into a native context),
//                    must be cheap and must not enter or leave a scope. A
//                    throw is not let through: that observer is stopped,
//                    with one warning. Returns the function that stops it.
//   onFrame(fn)      where AsyncLocalStorage runs on AsyncContextFrame
//                    (lib/core/frames.js): fn(frame, store) for every frame
//                    a scope makes (withLabels, a trace scope: on the way
//                    in; on the way out only where something inside left
//                    another frame current, else the frame current before
//                    is current again, as it was), before the frame is
//                    current; it may put entries of its own into it.
//                    Returns the function that stops it, or a string
//                    saying why frames cannot be made here.
//   hooks()          whether this thread switches (its mode, decided now if
//                    it was not)
//   current()        the current set, or null
//   labelsOf(set)    the labels a set holds, { key: value }
//   currentFrame()   the current frame (onFrame's kind), or undefined
//                    outside any

const { findFrames } = require('./frames');
const { warnOnce } = require('./warnings');

// Calls each of `fns` (a list that changes) as one function: the one itself
// when it is alone; null when there is none.
function fanOut(fns) {
  if (fns.length === 0) return null;
  if (fns.length === 1) return fns[0];
  const all = [...fns];
  return (a, b) => {
    for (const fn of all) fn(a, b);
  };
}

function createObservers(thread) {
  const { binding, publisher } = thread;
  let frames;
  const onFrames = [];
  const onSwitches = [];

  function removeFrom(list, fn, update) {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      list.splice(list.indexOf(fn), 1);
      update();
    };
  }

  const updateSwitches = () => {
    publisher.observer = fanOut(onSwitches);
  };

  return Object.freeze({
    onSwitch(fn) {
      let stop = null;
      const guarded = (set) => {
        try {
          fn(set);
        } catch (err) {
          warnOnce('observer', `customlabels: an observer of label switches threw (${err && err.message}) and was stopped`, 'CUSTOMLABELS_OBSERVER');
          stop();
        }
      };
      onSwitches.push(guarded);
      updateSwitches();
      stop = removeFrom(onSwitches, guarded, updateSwitches);
      return stop;
    },
    onFrame(fn) {
      if (frames === undefined) frames = findFrames();
      if (frames.reason !== undefined) return frames.reason;
      onFrames.push(fn);
      const update = () => thread.setFramer(frames, fanOut(onFrames));
      update();
      return removeFrom(onFrames, fn, update);
    },
    hooks: () => thread.mode().hooks,
    current: () => thread.current(),
    labelsOf: (set) => binding.labelsOf(set.slab, set.offset),
    currentFrame() {
      if (frames === undefined) frames = findFrames();
      return frames.reason === undefined ? frames.current() : undefined;
    },
  });
}

// Without an addon: nothing to follow.
const unsupportedObservers = Object.freeze({
  onSwitch: () => () => {},
  onFrame: () => 'customlabels has no native addon here',
  hooks: () => false,
  current: () => null,
  labelsOf: () => ({}),
  currentFrame: () => undefined,
});

module.exports = { createObservers, unsupportedObservers };
