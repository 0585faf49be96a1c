'use strict';

// Other carriers of the current context that follow customlabels' set on
// this thread: an in-process profiler's context (customlabels/pprof). Two
// ways to follow it, over the thread's state (lib/core/thread.js). Not
// public API.
//
//   addToFrames(add)      where AsyncLocalStorage runs on AsyncContextFrame
//                         (lib/core/frames.js): every frame a scope makes
//                         (withLabels, a span's scope, on the way in and on
//                         the way out) gets add(frame, store) before it is
//                         current; returns the function that stops it, or
//                         a string saying why frames cannot be made here
//   followSwitches(fn)    fn(set or null) after every switch of the TLS
//                         pointers (hooks on: every continuation, every
//                         scope's way in and out); returns the function that
//                         stops it
//   hooks()               whether this thread switches (its mode, decided
//                         now if it was not)
//   current()             the current set, or null
//   labelsOf(set)         the labels a set holds, { key: value }
//   currentFrame()        the current frame (addToFrames' kind), or
//                         undefined outside any
//
// A follower runs on the hot path of every switch: it stores, it does not
// call out.

const { findFrames } = require('./frames');

// Calls each of `fns` (a list that changes) as one function: the one itself
// when it is alone.
function fanOut(fns) {
  if (fns.length === 0) return null;
  if (fns.length === 1) return fns[0];
  const all = [...fns];
  return (a, b) => {
    for (const fn of all) fn(a, b);
  };
}

function createMirrors(thread) {
  const { binding, publisher } = thread;
  let frames;
  const adders = [];
  const followers = [];
  let baseInstall = null;

  function removeFrom(list, fn, update) {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      list.splice(list.indexOf(fn), 1);
      update();
    };
  }

  function updateFollowers() {
    const follow = fanOut(followers);
    if (follow === null) {
      if (baseInstall !== null) publisher.install = baseInstall;
      baseInstall = null;
      return;
    }
    if (baseInstall === null) baseInstall = publisher.install;
    const base = baseInstall;
    publisher.install = function install(set) {
      base.call(this, set);
      follow(set);
    };
  }

  return Object.freeze({
    addToFrames(add) {
      if (frames === undefined) frames = findFrames();
      if (frames.reason !== undefined) return frames.reason;
      adders.push(add);
      const update = () => thread.setFramer(frames, fanOut(adders));
      update();
      return removeFrom(adders, add, update);
    },
    followSwitches(fn) {
      followers.push(fn);
      updateFollowers();
      return removeFrom(followers, fn, updateFollowers);
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
const unsupportedMirrors = Object.freeze({
  addToFrames: () => 'customlabels has no native addon here',
  followSwitches: () => () => {},
  hooks: () => false,
  current: () => null,
  labelsOf: () => ({}),
  currentFrame: () => undefined,
});

module.exports = { createMirrors, unsupportedMirrors };
