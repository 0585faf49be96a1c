'use strict';

// Micro benchmarks of one mode in this process; prints one JSON line.
//   node --expose-gc bench/micro.js <mode>

const { createMode } = require('./modes');

const mode = process.argv[2];
const { run } = createMode(mode);
const { asyncLoops, now } = require('./loops');

// ns per await and per setImmediate hop (./loops.js).
const { perAwait, perImmediate } = asyncLoops(run);

// ns per synchronous scope with 3 labels, distinct values every call.
function perSync(calls = 200000) {
  let sink = 0;
  const start = now();
  for (let i = 0; i < calls; i++) sink += run({ route: '/bench', customer: `c${i}`, method: 'GET' }, () => i);
  const ns = (now() - start) / calls;
  if (sink === -1) console.log(sink);
  return ns;
}

// ns per synchronous scope with 3 labels whose values repeat (a few
// customers, as in a real service), new objects every call.
function perSyncRepeating(calls = 200000) {
  const customers = ['acme', 'globex', 'initech', 'umbrella'];
  let sink = 0;
  const start = now();
  for (let i = 0; i < calls; i++) sink += run({ route: '/bench', customer: customers[i & 3], method: 'GET' }, () => i);
  const ns = (now() - start) / calls;
  if (sink === -1) console.log(sink);
  return ns;
}

// ns per synchronous scope passing the same frozen object again.
const frozen = Object.freeze({ route: '/bench', customer: 'acme', method: 'GET' });
function perFrozen(calls = 500000) {
  let sink = 0;
  const start = now();
  for (let i = 0; i < calls; i++) sink += run(frozen, () => i);
  const ns = (now() - start) / calls;
  if (sink === -1) console.log(sink);
  return ns;
}

const memory = () => {
  global.gc();
  global.gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed + m.external, rss: m.rss };
};

// Bytes per live labelled scope: 100,000 scopes pending at once.
async function perLiveScope(scopes = 100000) {
  const resolvers = [];
  const before = memory();
  const pending = [];
  for (let i = 0; i < scopes; i++) {
    // A pending continuation keeps its scope (and its label set) alive.
    pending.push(
      run({ route: '/bench', customer: `c${i}` }, async () => {
        await new Promise((r) => resolvers.push(r));
      }),
    );
  }
  const during = memory();
  for (const r of resolvers) r();
  await Promise.all(pending);
  return (during.heap - before.heap) / scopes;
}

// RSS growth over 1,000,000 sync scopes with distinct values, then over a
// second million (a leak would keep growing).
function rssGrowth(calls = 1000000) {
  const base = memory().rss;
  perSync(calls);
  const first = memory().rss;
  perSync(calls);
  const second = memory().rss;
  return { first: (first - base) / 1e6, second: (second - first) / 1e6 };
}

(async () => {
  // Warm up, then measure.
  await perAwait(100, 100);
  await perImmediate(100, 50);
  perSync(20000);
  perFrozen(20000);
  perSyncRepeating(20000);
  const result = {
    mode,
    node: process.version,
    awaitNs: await perAwait(),
    immediateNs: await perImmediate(),
    syncNs: perSync(),
    repeatNs: perSyncRepeating(),
    frozenNs: perFrozen(),
    liveScopeBytes: await perLiveScope(),
    rssMB: rssGrowth(),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
})();
