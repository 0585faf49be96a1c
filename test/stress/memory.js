'use strict';

// Memory samples of a stress target, and the one rule both suites judge
// them by.
//
// V8 grows a heap's young generation in steps whenever its heuristics decide
// to (new space 16 -> 32 -> 64 MB, sometimes 128 MB, on Node 24 and 26), with
// or without customlabels loaded: README.md shows the runs. That capacity is
// bounded by V8 and holds nothing long-lived, so a leak cannot hide in it;
// its growth is taken out of the RSS growth a suite asserts on. Everything
// else (old space, code, native memory, ArrayBuffers, malloc arenas) counts.

const v8 = require('node:v8');

async function sampleMemory(gc) {
  if (gc && typeof global.gc === 'function') {
    global.gc();
    await new Promise((resolve) => setImmediate(resolve));
    global.gc();
  }
  const spaces = {};
  for (const s of v8.getHeapSpaceStatistics()) spaces[s.space_name] = s.space_size;
  return { ...process.memoryUsage(), spaces };
}

const youngGeneration = (sample) => (sample.spaces.new_space || 0) + (sample.spaces.new_large_object_space || 0);

// RSS growth from `base` to `end`, less what the young generation grew by.
function growth(base, end) {
  const rss = end.rss - base.rss;
  const young = youngGeneration(end) - youngGeneration(base);
  return { rss, young, counted: rss - Math.max(0, young) };
}

module.exports = { sampleMemory, youngGeneration, growth };
