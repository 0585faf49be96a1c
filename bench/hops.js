'use strict';

// ns per await and per setImmediate hop alone (the loops of micro.js), median
// of 7 in one process; prints one JSON line. Run it pinned, alternating modes:
//   taskset -c 0 node bench/hops.js <mode>     (modes: see ./modes.js)

const { createMode } = require('./modes');
const { asyncLoops } = require('./loops');

const { perAwait, perImmediate } = asyncLoops(createMode(process.argv[2]).run);

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

(async () => {
  await perAwait(100, 100);
  await perImmediate(100, 50);
  const awaits = [];
  const hops = [];
  for (let i = 0; i < 7; i++) {
    awaits.push(await perAwait());
    hops.push(await perImmediate());
  }
  process.stdout.write(`${JSON.stringify({ mode: process.argv[2], node: process.version, awaitNs: median(awaits), immediateNs: median(hops) })}\n`);
})();
