'use strict';

// ns per new label set written into a slab (lib/core/slab.js SlabWriter.write:
// encoding, the native build() and, with records on, the thread context
// record), 3 labels whose values differ every call. Prints one JSON line:
// {records, ns}, median of 7 loops.
//   node bench/record-cost.js <records: 0|1>

const { SlabWriter } = require('../lib/core/slab');
const { readLabels } = require('../lib/core/labels');
const { loadBinding } = require('../lib/core/binding');

const records = process.argv[2] === '1';
const { binding } = loadBinding();
const writer = new SlabWriter(binding, records);

const N = 200000;
let n = 0;
function loop() {
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    const updates = readLabels({ route: '/bench', customer: `c${n++}`, method: 'GET' });
    writer.write(null, updates);
    updates.clear();
  }
  return Number(process.hrtime.bigint() - start) / N;
}
for (let i = 0; i < 2; i++) loop();
const samples = Array.from({ length: 7 }, loop).sort((x, y) => x - y);
process.stdout.write(`${JSON.stringify({ records, ns: samples[3] })}\n`);
