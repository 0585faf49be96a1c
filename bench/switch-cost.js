'use strict';

// ns per switch of the thread's pointers, alone: lib/core/publisher.js install()
// alternating between two real label sets, with thread context records
// (two stores: custom_labels_current_set, otel_thread_ctx_v1) or without
// (one store). Prints one JSON line: {records, ns} medians of 9 loops.
//   node bench/switch-cost.js <records: 0|1>

const { createPublisher } = require('../lib/core/publisher');
const { SlabWriter } = require('../lib/core/slab');
const { readLabels } = require('../lib/core/labels');
const { loadBinding } = require('../lib/core/binding');

const records = process.argv[2] === '1';
const { binding } = loadBinding();
const writer = new SlabWriter(binding, records);
const a = writer.write(null, readLabels({ route: '/a', customer: 'acme' }));
const b = writer.write(null, readLabels({ route: '/b', customer: 'globex' }));
if (records && (a.record === 0n || b.record === 0n)) throw new Error('no records built');
const publisher = createPublisher(binding, records);

const N = 5_000_000;
function loop() {
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) publisher.install(i & 1 ? a : b);
  publisher.install(null);
  return Number(process.hrtime.bigint() - start) / N;
}
for (let i = 0; i < 3; i++) loop(); // warm up (optimized code)
const samples = Array.from({ length: 9 }, loop).sort((x, y) => x - y);
process.stdout.write(`${JSON.stringify({ records, ns: samples[4] })}\n`);
