'use strict';

// Hook-free discovery for Node.js readers (src/core/node_context.h): V8
// carries the store of our private AsyncLocalStorage from continuation to
// continuation; readers walk to it from a per-thread struct written once.
// This module finds out, per thread, whether that walk works here, in two
// steps that lib/core/mode.js runs in order:
//
//   loadNodeContext():
//   1. the V8 unit for this ABI loads (lib/core/v8-unit.js);
//   2. AsyncLocalStorage is backed by AsyncContextFrame: inside als.run()
//      the continuation data is a Map holding our store (a feature test,
//      never the version or the flags);
//   3. the unit borrows the addon's builder (so that it makes each set and
//      its wrapper object in one call; the wrappers inherit LabelSet's
//      methods) and reports the layout it sees (from V8's headers and a
//      wrapper of the class it makes);
//   publishNodeContext(probe), with a set the unit made:
//   4. the walk readers do, run in-process over a frame holding that set,
//      finds exactly it and its record; outside the scope it finds none;
//   5. only then is the discovery struct published (gates last).
//
// Any step failing leaves everything unpublished and says why; labels then
// go on through the TLS pointer (with hooks).

const { loadV8Unit } = require('./v8-unit');
const { FIELDS, LabelSet } = require('./label-set');

const hex = (v) => `0x${v.toString(16)}`;

// What a failed step leaves: nothing published, and why.
const unavailable = (reason, unitFile = null) =>
  Object.freeze({ state: 'unavailable', reason, layout: null, discovery: null, makeSet: null, retarget: null, unitFile });

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

// Steps 1-3: { state: 'loaded', layout, discovery, makeSet, retarget,
// unitFile } or unavailable(reason). `makeSet`: the unit's, which builds a
// set and makes its wrapper; `retarget(target, source)`: moves a wrapper to
// another set. `wanted`: false where configuration turned the walk off.
function loadNodeContext(binding, als, wanted) {
  if (!wanted) return unavailable('CUSTOMLABELS_NODE_CONTEXT is off');
  try {
    return load(binding, als);
  } catch (err) {
    // Never the app's problem: labels go on through the TLS pointer.
    return unavailable(`the node context could not be set up: ${err.message}`);
  }
}

function load(binding, als) {
  const { unit, file, reason } = loadV8Unit();
  if (unit === null) return unavailable(reason);
  const marker = {};
  if (!als.run(marker, () => unit.frameHolds(als, marker))) {
    return unavailable(
      'AsyncLocalStorage is not backed by AsyncContextFrame here (Node.js 22 needs --experimental-async-context-frame; 24+ has it unless --no-async-context-frame)',
      file,
    );
  }
  if (typeof binding.nativeBuilder !== 'function' || !unit.useBuilder(binding.nativeBuilder())) {
    return unavailable('the addon lends no builder this V8 unit speaks (a copy of customlabels of another version loaded the addon)', file);
  }
  // The unit's sets are LabelSets: they inherit its methods.
  Object.setPrototypeOf(unit.shapeSets(FIELDS).prototype, LabelSet.prototype);
  const found = unit.pin(als);
  const layout = Object.freeze({
    taggedSize: found.taggedSize,
    jsMapTableOffset: found.jsMapTableOffset,
    orderedHashMapHeaderSize: found.orderedHashMapHeaderSize,
    labelSetSlotOffset: found.labelSetSlotOffset,
    recordSlotOffset: found.recordSlotOffset,
  });
  if (layout.labelSetSlotOffset < 0 || layout.recordSlotOffset < 0) {
    return unavailable('the layout probe failed: V8 does not keep internal fields where the walk can find them', file);
  }
  const discovery = Object.freeze({
    cpedSlot: found.cpedSlot,
    alsHandle: found.alsHandle,
    alsIdentityHash: found.alsIdentityHash,
    undefinedValue: found.undefinedValue,
  });
  return Object.freeze({ state: 'loaded', reason: null, layout, discovery, makeSet: unit.makeSet, retarget: unit.retarget, unitFile: file });
}

// Steps 4-5 for a loaded node context and `probe`, a set its makeSet made:
// the node context as published, or unavailable(reason).
function publishNodeContext(binding, als, loaded, probe) {
  const { discovery, layout } = loaded;
  // (A set the walk must find: run(null) would put null in the frame.)
  if (probe === null) return unavailable('the layout probe has no set to walk to', loaded.unitFile);
  try {
    als.run(probe, () => expectWalk(binding, discovery, layout, probe));
    expectWalk(binding, discovery, layout, null);
    binding.publishNodeContext(discovery, layout.recordSlotOffset);
  } catch (err) {
    return unavailable(`the layout probe failed: ${err.message}`, loaded.unitFile);
  }
  return Object.freeze({ ...loaded, state: 'published' });
}

module.exports = { loadNodeContext, publishNodeContext, unavailable };
