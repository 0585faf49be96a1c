'use strict';

// Scopes opened where no function wraps the work that follows: work that
// a diagnostics_channel message announces, labels learnt in the middle of
// that work. Over the thread's state (lib/core/thread.js), beside the
// public API. Not public API; test/js/scopes.test.js holds its contract.
//
//   enterLabels(labels)   `labels` merged over the current set, current for
//                         the rest of the running execution and everything
//                         it causes (AsyncLocalStorage#enterWith): what
//                         runs after it in the same callback, and every
//                         continuation made from there, for good (it is the
//                         same work: a request's, from where it is known).
//                         Whatever ran before keeps its own. Returns the set
//                         now current (an opaque value, for runIn). Throws
//                         as withLabels does on bad labels, before anything
//                         changes.
//   enterOwn(labels)      the same with `labels` alone, over no set: work
//                         of its own (a request Node.js announces), whatever
//                         the execution it starts in carried (the previous
//                         request on a connection, where AsyncLocalStorage
//                         keeps stores on async resources, has left its own
//                         on the connection's)
//   enterUntil(labels)    `labels` over the current set, as enterLabels,
//                         but returns the function that makes what was
//                         current current again (a scope whose end is
//                         announced: a tracing channel's end)
//   current()             the set current now (opaque; null: none)
//   runIn(set, fn)        fn() with `set` (one of the above) current, as a
//                         withLabels scope of it
//   onFrames()            whether AsyncLocalStorage runs on AsyncContextFrame
//                         here (lib/core/frames.js): where it does not, its
//                         store travels with every async resource, and the
//                         callbacks of an emitter made in a scope run in it

const { readLabels } = require('./labels');
const { findFrames } = require('./frames');

let frames;
const onFrames = () => (frames ??= findFrames().reason === undefined);

function createScopes(thread) {
  function enterOver(parent, labels) {
    thread.mode();
    const set = thread.derive(parent, labels);
    thread.enterForGood(set);
    return set;
  }
  const enterLabels = (labels) => enterOver(thread.current(), labels);
  const enterOwn = (labels) => enterOver(null, labels);
  const enterUntil = (labels) => {
    thread.mode();
    return thread.enter(thread.derive(thread.current(), labels));
  };
  const current = () => thread.current();
  const runIn = (set, fn) => thread.runWith(set, fn);
  return Object.freeze({ enterLabels, enterOwn, enterUntil, current, runIn, onFrames });
}

// Without an addon: the labels are checked, nothing is entered.
const unsupportedScopes = Object.freeze({
  enterLabels(labels) {
    readLabels(labels);
    return null;
  },
  enterOwn(labels) {
    readLabels(labels);
    return null;
  },
  enterUntil(labels) {
    readLabels(labels);
    return () => {};
  },
  current: () => null,
  runIn: (set, fn) => fn(),
  onFrames,
});

module.exports = { createScopes, unsupportedScopes };
