'use strict';

// A thread's mode and its configuration: whether hooks switch the TLS
// pointers on every continuation, whether readers can walk V8's
// continuation data to our store (lib/core/node-context.js), and the writer
// that builds label sets accordingly. Decided once per thread, at its first
// scope (decideMode), from:
//
//   configure({ hooks })          this thread's (or, from the main thread,
//                                 every worker's) choice, first;
//   CUSTOMLABELS_HOOKS            0, false or off: hooks off if the walk works;
//   CUSTOMLABELS_THREAD_CONTEXT   0, false or off: no OTEP 4947 records;
//   CUSTOMLABELS_NODE_CONTEXT     0, false or off: never load the V8 unit;
//   CUSTOMLABELS_SWITCH           resource-init: keep the switch every line
//                                 starts with, never the cheaper one
//                                 (lib/core/switcher.js), as a fallback.

const { SlabWriter } = require('./slab');
const { TraceContext } = require('./trace-context');
const { loadNodeContext, publishNodeContext } = require('./node-context');

const isOff = (v) => v === '0' || v === 'false' || v === 'off';

// What the environment asks for.
function readModeConfig(env = process.env) {
  return Object.freeze({
    hooks: !isOff(env.CUSTOMLABELS_HOOKS),
    threadContext: !isOff(env.CUSTOMLABELS_THREAD_CONTEXT),
    nodeContext: !isOff(env.CUSTOMLABELS_NODE_CONTEXT),
    cheaperSwitch: env.CUSTOMLABELS_SWITCH !== 'resource-init',
  });
}

// The set that carries nothing of the app's (a record with trace ids only,
// or, without records, one label) that the layout probe walks to. Where no
// record can be made (another writer published the process context first,
// so records carry nothing: dd-trace's), the label.
function writeProbeSet(writer, reader, records) {
  const write = (labels, trace) => {
    const updates = reader.read(labels);
    try {
      return writer.write(null, updates, trace);
    } finally {
      updates.clear();
    }
  };
  const trace = records ? TraceContext.fromHex(`${'0'.repeat(31)}1`, `${'0'.repeat(15)}1`, 0) : null;
  return (records ? write({}, trace) : null) ?? write({ 'customlabels.probe': '1' }, null);
}

// The thread's mode: { wanted, hooks, node, reason, writer }, frozen.
//   wanted  whether hooks were asked for
//   hooks   whether they run (also where the walk cannot work)
//   node    the node context (published, or unavailable and why)
//   reason  why hooks stay on though not wanted, or null
//   writer  the SlabWriter every set of this thread is built by
// `hooksOption`: configure()'s, or undefined; `reader`: a LabelReader.
function decideMode({ binding, als, reader, records, config, hooksOption }) {
  const wanted = hooksOption ?? binding.hooksDefault() ?? config.hooks;
  const loaded = loadNodeContext(binding, als, config.nodeContext);
  let node = loaded;
  let writer = null;
  if (loaded.state === 'loaded') {
    // Sets are made by the V8 unit; hooks off, they need no BigInt
    // addresses (lib/core/label-set.js reads them when asked).
    writer = new SlabWriter(binding, records, { makeSet: loaded.makeSet, addresses: wanted });
    node = publishNodeContext(binding, als, loaded, writeProbeSet(writer, reader, records));
    if (node.state !== 'published') writer = null;
  }
  let hooks = wanted || node.state !== 'published';
  let reason = !wanted && hooks ? `hooks stay on: ${node.reason}` : null;
  // Readers of the process context must be told to walk before a thread
  // stops switching the TLS pointers.
  if (!hooks && records && !binding.useNodeSchema(node.layout)) {
    hooks = true;
    reason = 'hooks stay on: the process context could not be republished with nodejs_v1_dev';
  }
  if (writer === null || (hooks && !writer.addresses)) {
    writer = new SlabWriter(binding, records, { makeSet: node.state === 'published' ? node.makeSet : null, addresses: hooks });
  }
  return Object.freeze({ wanted, hooks, node, reason, writer });
}

module.exports = { decideMode, readModeConfig };
