'use strict';

// 100 concurrent "requests" with distinct labels interleave through random
// awaits, timers, immediates, ticks, microtasks, I/O and nested scopes; every
// step checks what the ABI pointer shows. Unlabelled background tasks run in
// between and must see no labels.

const fs = require('node:fs');
const { withLabels, currentLabels } = require('../..');

// Deterministic PRNG (bench/stats.js's mulberry32) so a failure can be
// replayed.
const { mulberry32: rng } = require('../../bench/stats');

const steps = [
  () => null,
  () => new Promise((r) => setImmediate(r)),
  (rand) => new Promise((r) => setTimeout(r, Math.floor(rand() * 4))),
  () => new Promise((r) => process.nextTick(r)),
  () => new Promise((r) => queueMicrotask(r)),
  () => fs.promises.stat(__filename),
  () => new Promise((r, j) => fs.stat(__filename, (e) => (e ? j(e) : r()))),
  () => Promise.all([new Promise((r) => setImmediate(r)), null]),
];

async function request(id, seed, failures) {
  const rand = rng(seed);
  const labels = { request: `req-${id}`, tenant: `tenant-${id % 7}` };
  const check = (expected, where) => {
    const seen = currentLabels();
    if (JSON.stringify(seen) !== JSON.stringify(expected)) failures.push({ id, where, expected, seen });
  };
  await withLabels(labels, async () => {
    check(labels, 'start');
    for (let i = 0; i < 25; i++) {
      const k = Math.floor(rand() * steps.length);
      await steps[k](rand);
      check(labels, `step ${i} kind ${k}`);
      if (rand() < 0.2) {
        const sub = { ...labels, phase: `p${i}` };
        await withLabels({ phase: `p${i}` }, async () => {
          check(sub, `nested ${i} start`);
          await steps[Math.floor(rand() * steps.length)](rand);
          check(sub, `nested ${i} after step`);
        });
        check(labels, `after nested ${i}`);
      }
    }
  });
  check({}, 'after scope');
}

async function background(seed, failures) {
  const rand = rng(seed);
  for (let i = 0; i < 40; i++) {
    await steps[Math.floor(rand() * steps.length)](rand);
    const seen = currentLabels();
    if (Object.keys(seen).length !== 0) failures.push({ id: 'background', where: `step ${i}`, expected: {}, seen });
  }
}

test('100 interleaved requests each see exactly their own labels at every step', async () => {
  const failures = [];
  await Promise.all([
    ...Array.from({ length: 100 }, (_, i) => request(i, 1000 + i, failures)),
    ...Array.from({ length: 5 }, (_, i) => background(99 + i, failures)),
  ]);
  expect(failures.slice(0, 5)).toEqual([]);
  expect(currentLabels()).toEqual({});
});
