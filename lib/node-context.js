'use strict';

// Hook-free discovery for Node.js readers (src/core/node_context.h): V8
// carries the store of our private AsyncLocalStorage from continuation to
// continuation; readers walk to it from a per-thread struct written once.
// This module decides, per thread, whether that walk works here and, if it
// does, publishes it:
//
//   1. the V8 unit for this ABI loads (lib/v8-unit.js);
//   2. AsyncLocalStorage is backed by AsyncContextFrame: inside als.run()
//      the continuation data is a Map holding our store (a feature test,
//      never the version or the flags);
//   3. the unit borrows the addon's builder (so that it makes each set and
//      its wrapper object in one call), reports the layout it sees (from
//      V8's headers and a wrapper of the class it makes), and the walk
//      readers do, run in-process over a frame holding a known label set,
//      finds exactly that set and its record; outside the scope it finds
//      none;
//   4. only then is the discovery struct published (gates last).
//
// Any step failing leaves everything unpublished and says why; labels then
// go on through the TLS pointer (with hooks).

const { loadV8Unit } = require('./v8-unit');
const { FIELDS, adoptSetMethods } = require('./label-set');

// CUSTOMLABELS_NODE_CONTEXT=0 (false, off): never load the V8 unit.
function nodeContextWanted(env) {
  const v = env.CUSTOMLABELS_NODE_CONTEXT;
  return !(v === '0' || v === 'false' || v === 'off');
}

const hex = (v) => `0x${v.toString(16)}`;

// Walks in-process; throws with what went wrong if the walk does not find
// `set` (null: finds no set).
function expectWalk(binding, discovery, layout, set) {
  const r = binding.walkNodeContext(discovery, layout);
  if (set === null) {
    if (r.status === 'found') throw new Error(`outside any scope the walk still found a store (${hex(r.labelSet)})`);
    return;
  }
  if (r.status !== 'found') throw new Error(`the walk over a known frame ended "${r.status}"`);
  if (r.labelSet !== set.address || r.record !== set.record) {
    throw new Error(
      `the walk found label set ${hex(r.labelSet)} and record ${hex(r.record)}, expected ${hex(set.address)} and ${hex(set.record)}`,
    );
  }
}

// { state: 'published' | 'unavailable', reason, layout, unitFile, makeSet,
// retarget }. `makeSet`: the unit's, which builds a set and makes its
// wrapper; `retarget(target, source)`: moves a wrapper to another set (both
// null where unavailable). `probeSet(makeSet)` makes a label set with it.
function setUpNodeContext(binding, als, probeSet, env = process.env) {
  try {
    return publish(binding, als, probeSet, env);
  } catch (err) {
    // Never the app's problem: labels go on through the TLS pointer.
    return { state: 'unavailable', reason: `the node context could not be set up: ${err.message}`, layout: null, makeSet: null, retarget: null, unitFile: null };
  }
}

function publish(binding, als, probeSet, env) {
  const unavailable = (reason, more = {}) => ({ state: 'unavailable', reason, layout: null, makeSet: null, retarget: null, unitFile: null, ...more });
  if (!nodeContextWanted(env)) return unavailable('CUSTOMLABELS_NODE_CONTEXT is off');
  const { unit, file, reason } = loadV8Unit();
  if (unit === null) return unavailable(reason);
  const marker = {};
  if (!als.run(marker, () => unit.frameHolds(als, marker))) {
    return unavailable(
      'AsyncLocalStorage is not backed by AsyncContextFrame here (Node.js 22 needs --experimental-async-context-frame; 24+ has it unless --no-async-context-frame)',
      { unitFile: file },
    );
  }
  if (typeof binding.nativeBuilder !== 'function' || !unit.useBuilder(binding.nativeBuilder())) {
    return unavailable('the addon lends no builder this V8 unit speaks (a copy of customlabels of another version loaded the addon)', {
      unitFile: file,
    });
  }
  adoptSetMethods(unit.shapeSets(FIELDS).prototype);
  const found = unit.pin(als);
  const layout = Object.freeze({
    taggedSize: found.taggedSize,
    jsMapTableOffset: found.jsMapTableOffset,
    orderedHashMapHeaderSize: found.orderedHashMapHeaderSize,
    labelSetSlotOffset: found.labelSetSlotOffset,
    recordSlotOffset: found.recordSlotOffset,
  });
  const discovery = Object.freeze({
    cpedSlot: found.cpedSlot,
    alsHandle: found.alsHandle,
    alsIdentityHash: found.alsIdentityHash,
    undefinedValue: found.undefinedValue,
  });
  try {
    if (layout.labelSetSlotOffset < 0 || layout.recordSlotOffset < 0) {
      throw new Error('V8 does not keep internal fields where the walk can find them');
    }
    const set = probeSet(unit.makeSet);
    als.run(set, () => expectWalk(binding, discovery, layout, set));
    expectWalk(binding, discovery, layout, null);
  } catch (err) {
    return unavailable(`the layout probe failed: ${err.message}`, { unitFile: file });
  }
  binding.publishNodeContext(discovery, layout.recordSlotOffset);
  return { state: 'published', reason: null, layout, discovery, makeSet: unit.makeSet, retarget: unit.retarget, unitFile: file };
}

module.exports = { setUpNodeContext, nodeContextWanted };
