'use strict';

// One @datadog/pprof copy's wall profiler (its `time` object) following
// customlabels' set on this thread, from each start() to its stop().
//
// How it keeps its context decides how the set reaches it, found by probes
// when it starts, never by version:
//
// - 'frame': started with useCPED, on a Node.js whose AsyncLocalStorage runs
//   on AsyncContextFrame. The profiler keeps a context per async context,
//   as an entry of the frame under a private AsyncLocalStorage of its own
//   (found as the one entry runWithContext changes), each value a holder
//   object it makes. Every frame a customlabels scope makes gets that entry
//   too, before V8 carries it anywhere (lib/core/observers.js onFrame):
//   one Map store per frame, of a holder made once per (host context, set).
//   Hooks on or off alike.
// - 'global': started without useCPED (Pyroscope's SDK, Node.js 20): one
//   context per thread, which the host sets. customlabels switches it
//   wherever it switches its own pointer (hooks on: every continuation),
//   storing the set into the installed ProfileContext, as dd-trace does: a
//   sample keeps a reference, so a context a sample has taken (the
//   profiler's sample count moved) is never written again; the next switch
//   installs a new one (one setContext per sample at most). With hooks off
//   nothing switches it, and the profile gets none of customlabels' labels:
//   a profile without labels beats one with wrong ones.
// - 'none': started without withContexts (it records no context), or a
//   probe failed; said why.
//
// The host's own contexts (setContext, runWithContext) are kept beside the
// set, and its getContext() answers them (./contexts.js).

const { ProfileContext, hostOf, labelCache, mergeLabels } = require('./contexts');

const kAttachment = Symbol.for('customlabels.pprof.attachment'); // on a time object

const isObject = (v) => v !== null && (typeof v === 'object' || typeof v === 'function');

class Attachment {
  // `time`: the profiler's; `original`: its functions before any wrapper
  // (start, stop, stopV2, setContext, getContext, runWithContext, getState,
  // isStarted); `observers`: this thread's (lib/core/observers.js).
  constructor(time, original, observers, name) {
    this.time = time;
    this.original = original;
    this.observers = observers;
    this.name = name;
    this.labelsOf = labelCache(observers.labelsOf);
    this.context = 'none';
    this.reason = 'the profiler has not started';
    this.stop = null; // stops following
    // 'frame'
    this.key = null; // the profiler's AsyncLocalStorage
    this.plain = new WeakMap(); // set -> holder, no host context
    this.hosted = new WeakMap(); // host context -> (set or this -> holder)
    // 'global'
    this.installed = null; // the ProfileContext the profiler holds
    this.seen = -1; // the sample count when it was installed
    this.state = null;
    this.countAt = 0;
    this.left = false; // leave(): passes everything through from now on
  }

  describe() {
    return Object.freeze({ profiler: this.name, context: this.context, reason: this.reason });
  }

  // After the host's start(options) (undefined: started before this copy
  // attached, its options unknown).
  begin(options) {
    this.end();
    if (this.left) return;
    this.reason = null;
    try {
      const wanted = options === undefined ? undefined : options.useCPED === true;
      if (options !== undefined && options.withContexts !== true) {
        this.context = 'none';
        this.reason = 'the profiler was started without withContexts: it records no context';
      } else if (wanted !== false && this.beginFrames()) {
        this.context = 'frame';
      } else if (wanted === true) {
        this.context = 'none';
        this.reason ??= 'useCPED: the profiler keeps no context per async context here';
      } else if (!this.observers.hooks()) {
        this.context = 'none';
        this.reason =
          'the profiler keeps one context per thread, which only hooks switch, and they are off (CUSTOMLABELS_HOOKS=0): start it with useCPED on Node.js 24+ to see labels without hooks';
      } else {
        this.beginGlobal();
        this.context = 'global';
        this.reason = null; // (a frame probe of unknown options may have said why not)
      }
    } catch (err) {
      this.end();
      this.context = 'none';
      this.reason = `the profiler could not be followed: ${err.message}`;
    }
  }

  // 'frame': finds the profiler's entry in the frame; false (with a reason)
  // where it has none.
  beginFrames() {
    const { observers, original } = this;
    const outer = observers.currentFrame();
    const marker = {};
    let inner;
    let seen;
    try {
      original.runWithContext(marker, () => {
        inner = observers.currentFrame();
        seen = original.getContext();
      });
    } catch (err) {
      this.reason = `useCPED: runWithContext failed (${err.message})`;
      return false;
    }
    if (inner === undefined || seen !== marker) {
      this.reason = 'useCPED: the profiler reads no context from AsyncContextFrame here';
      return false;
    }
    const changed = [];
    for (const [key, value] of inner) if (outer === undefined || outer.get(key) !== value) changed.push(key);
    if (changed.length !== 1 || !isObject(inner.get(changed[0])) || inner.get(changed[0])[0] !== marker) {
      this.reason = 'useCPED: its entry in the frame was not found';
      return false;
    }
    this.key = changed[0];
    const stop = observers.onFrame((frame, store) => this.addTo(frame, store));
    if (typeof stop === 'string') {
      this.reason = `useCPED: ${stop}`;
      return false;
    }
    this.stop = stop;
    return true;
  }

  // A holder the profiler made for `value` (what it keeps in a frame).
  holderOf(value) {
    const { original, observers, key } = this;
    return original.runWithContext(value, () => observers.currentFrame().get(key));
  }

  // The holder of (host, set), made once.
  holderFor(host, set) {
    if (host === undefined) {
      if (set === null) return undefined;
      let holder = this.plain.get(set);
      if (holder === undefined) {
        holder = this.holderOf(new ProfileContext(undefined, set));
        this.plain.set(set, holder);
      }
      return holder;
    }
    if (!isObject(host)) return this.holderOf(new ProfileContext(host, set));
    let bySet = this.hosted.get(host);
    if (bySet === undefined) {
      bySet = new WeakMap();
      this.hosted.set(host, bySet);
    }
    const at = set === null ? this : set;
    let holder = bySet.get(at);
    if (holder === undefined) {
      holder = this.holderOf(new ProfileContext(host, set));
      bySet.set(at, holder);
    }
    return holder;
  }

  // Each frame a scope makes: the profiler's entry for the frame's host
  // context (what the frame it copies holds) and the scope's set.
  // (The profiler may have stopped without stop() being called, as it
  // does at exit: then it is let go, and the scope goes on.)
  addTo(frame, store) {
    const { key } = this;
    try {
      const held = frame.get(key);
      const host = held === undefined ? undefined : hostOf(held[0]);
      const holder = this.holderFor(host, store === undefined ? null : store);
      if (holder === undefined) frame.delete(key);
      else frame.set(key, holder);
    } catch {
      if (!this.original.isStarted()) this.end();
    }
  }

  beginGlobal() {
    const { original, time } = this;
    this.state = original.getState();
    this.countAt = time.constants.kSampleCount;
    this.install(hostOf(original.getContext()), this.observers.current());
    this.stop = this.observers.onSwitch((set) => this.follow(set));
  }

  install(host, set) {
    const context = new ProfileContext(host, set);
    this.seen = this.state[this.countAt];
    this.original.setContext(context);
    this.installed = context;
  }

  // On every switch ('global'): the set, into the context the profiler
  // holds if no sample has taken it since it was installed. (A sample
  // taken between reading the count and the store gets the new set: the
  // window of the switch itself, a few instructions, as readers from
  // outside have it.)
  follow(set) {
    const context = this.installed;
    if (this.state[this.countAt] === this.seen) {
      context.set = set;
      return;
    }
    if (context.set === set) return;
    try {
      this.install(context.host, set);
    } catch {
      if (!this.original.isStarted()) this.end();
    }
  }

  // The host's setContext(value).
  setContext(value) {
    const { original } = this;
    if (this.context === 'global') {
      this.install(value, this.installed.set);
      return undefined;
    }
    if (this.context === 'frame') {
      const set = this.observers.current();
      return original.setContext(value === undefined && set === null ? undefined : new ProfileContext(value, set));
    }
    return original.setContext(value);
  }

  // The host's runWithContext(value, fn, ...args).
  runWithContext(value, fn, args) {
    const wrapped = this.context === 'frame' ? new ProfileContext(value, this.observers.current()) : value;
    return this.original.runWithContext(wrapped, fn, ...args);
  }

  // After a stop(restart): the sample count starts again from 0.
  restarted() {
    this.seen = -1;
  }

  end() {
    if (this.stop !== null) this.stop();
    this.stop = null;
    this.key = null;
    this.plain = new WeakMap();
    this.hosted = new WeakMap();
    this.installed = null;
    this.state = null;
    this.context = 'none';
    this.reason = 'the profiler has stopped';
  }

  // Leaves the profiler alone from now on (its host is a version this
  // release does not support): every call passes through.
  leave(why) {
    this.left = true;
    this.end();
    this.reason = why;
  }

  generateLabels(generate) {
    return mergeLabels(generate, this.labelsOf);
  }
}

// The attachment of `time` (any copy of customlabels made it), or undefined.
const attachmentOf = (time) => (isObject(time) ? time[kAttachment] : undefined);

function attach(time, original, observers, name) {
  const attachment = new Attachment(time, original, observers, name);
  Object.defineProperty(time, kAttachment, { value: attachment, configurable: true });
  return attachment;
}

function detach(time) {
  const attachment = attachmentOf(time);
  if (attachment === undefined) return;
  attachment.end();
  delete time[kAttachment];
}

module.exports = { attach, attachmentOf, detach, ProfileContext };
