'use strict';

// Where a synchronous withLabels with 3 never-seen values spends its time:
// each step measured alone (median of 5 loops, ns per call), then the whole.
//   taskset -c 0 node bench/breakdown.js
//   CUSTOMLABELS_HOOKS=0 taskset -c 0 node bench/breakdown.js   (hook-free:
//   the whole is a set, its record and its wrapper, on Node.js 24+)
// Where the V8 unit loads, it also times makeSet(): build() and the set's
// wrapper object in one call, as hook-free withLabels makes them.

const { AsyncLocalStorage } = require('node:async_hooks');
const { readLabels, Updates } = require('../lib/core/labels');
const { Encoder } = require('../lib/core/encoder');
const { loadBinding } = require('../lib/core/binding');
const { loadV8Unit } = require('../lib/core/v8-unit');
const { FIELDS, initSet } = require('../lib/core/label-set');
const { withLabels, strategy } = require('..');

const { binding } = loadBinding();
const now = () => Number(process.hrtime.bigint());

function measure(name, fn, calls = 1e6) {
  for (let i = 0; i < 1e5; i++) fn(i);
  const runs = [];
  for (let k = 0; k < 5; k++) {
    const start = now();
    for (let i = 0; i < calls; i++) fn(i);
    runs.push((now() - start) / calls);
  }
  runs.sort((a, b) => a - b);
  return [name, runs[2]];
}

const labels = (i) => ({ route: '/bench', customer: `c${i}`, method: 'GET' });
const updates = new Updates();
const encoder = new Encoder(undefined, true);
readLabels(labels(12345), updates);
const n = encoder.encode(updates);
const slab = new ArrayBuffer(1 << 20);
const als = new AsyncLocalStorage();
let sink = 0;

const rows = [
  measure('create the labels object (caller)', (i) => {
    sink += labels(i).customer.length;
  }),
  measure('+ read and validate it', (i) => {
    readLabels(labels(i), updates);
  }),
  measure('+ encode into the scratch buffer', (i) => {
    readLabels(labels(i), updates);
    encoder.encode(updates);
  }),
  measure('native build(), no labels (call cost)', () => binding.build(null, 0, encoder.scratch, 0, slab, 0)),
  measure('native build(), 3 labels (call + merge)', (i) => binding.build(null, 0, encoder.scratch, n, slab, (i & 1023) * 256)),
  measure('new ArrayBuffer(4096) (one per ~20 sets)', () => {
    sink += new ArrayBuffer(4096).byteLength;
  }),
];
// Where readers walk V8's continuation data, the V8 unit makes every set:
// build() and the wrapper object in one call.
const { unit } = loadV8Unit();
if (unit !== null && unit.useBuilder(binding.nativeBuilder())) {
  unit.shapeSets(FIELDS);
  rows.push(
    measure('makeSet(), 3 labels (build + wrapper)', (i) => {
      const at = (i & 1023) * 256;
      initSet(unit.makeSet(null, 0, encoder.scratch, n, slab, at), slab, at, undefined, undefined);
    }),
  );
}
rows.push(
  measure('AsyncLocalStorage#run (the baseline)', (i) => als.run(labels(i), () => i)),
  measure('withLabels, whole', (i) => withLabels(labels(i), () => i), 2e5),
);
if (sink === -1) console.log(sink);
const { hooks, nodeContext } = strategy();
console.log(`${process.version}, hooks ${hooks ? 'on' : 'off'}, node context ${nodeContext}; ns per call (median of 5 loops):`);
for (const [name, ns] of rows) console.log(`  ${name.padEnd(42)} ${ns.toFixed(0).padStart(5)}`);
