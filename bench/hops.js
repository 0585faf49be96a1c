'use strict';

// ns per await and per setImmediate hop alone (the loops of micro.js), median
// of 7 in one process; prints one JSON line. Run it pinned, alternating modes:
//   taskset -c 0 node bench/hops.js <mode>     (modes: see ./modes.js)

const { createMode } = require('./modes');

const { run } = createMode(process.argv[2]);
const now = () => Number(process.hrtime.bigint());

async function perAwait(requests = 100, awaits = 1000) {
  const start = now();
  await Promise.all(
    Array.from({ length: requests }, (_, i) =>
      run({ route: '/bench', customer: `c${i}` }, async () => {
        for (let k = 0; k < awaits; k++) await null;
      }),
    ),
  );
  return (now() - start) / (requests * awaits);
}

async function perImmediate(chains = 100, hops = 300) {
  const start = now();
  await Promise.all(
    Array.from({ length: chains }, (_, i) =>
      run({ route: '/bench', customer: `c${i}` }, () =>
        new Promise((resolve) => {
          let k = 0;
          const hop = () => (++k < hops ? setImmediate(hop) : resolve());
          setImmediate(hop);
        }),
      ),
    ),
  );
  return (now() - start) / (chains * hops);
}

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
