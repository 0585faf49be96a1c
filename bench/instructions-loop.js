'use strict';

// The loop bench/instructions.js counts: `count` awaits of 100 concurrent
// requests, or `count` setImmediate hops of 100 chains, in a mode of
// ./modes.js, after the same warm-up in every run ('settled'), or right
// after the first scope, with no turn of the event loop before ('first':
// what a batch job's first stretch of microtasks pays while the switch's
// probe has not seen its callbacks yet).
//   node --single-threaded bench/instructions-loop.js <mode> <await|hop> <count> [settled|first]

const { createMode } = require('./modes');
const { asyncLoops } = require('./loops');

const [mode, kind, count, when = 'settled'] = process.argv.slice(2);
const { perAwait, perImmediate } = asyncLoops(createMode(mode).run);

(async () => {
  if (when === 'settled') {
    // Warm-up: the first scope (probes, the switch settling) and V8's tiers.
    await perAwait(100, 200);
    await perImmediate(100, 50);
  }
  if (kind === 'await') await perAwait(100, Number(count) / 100);
  else await perImmediate(100, Number(count) / 100);
})();
