'use strict';

// ns per synchronous scope that makes a new label set: 3 labels whose values
// differ on every call (for customlabels: a set, its record and, without
// hooks, its wrapper are built each time; for `als`: AsyncLocalStorage#run
// with a fresh store object; for `datadog`: a new ThreadContext), median of
// 7 loops in one process; prints one JSON line.
//   taskset -c 0 node bench/new-set.js <mode>     (modes: see ./modes.js)

const { createMode } = require('./modes');
const { now } = require('./loops');

const { run } = createMode(process.argv[2]);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

let seq = 0;
function loop(calls) {
  let sink = 0;
  const start = now();
  for (let i = 0; i < calls; i++) {
    const n = seq++;
    sink += run({ route: '/bench', customer: `c${n}`, method: 'GET' }, () => n);
  }
  if (sink === -1) console.log(sink);
  return (now() - start) / calls;
}

loop(20000);
const samples = [];
for (let i = 0; i < 7; i++) samples.push(loop(100000));
process.stdout.write(`${JSON.stringify({ mode: process.argv[2], node: process.version, newSetNs: median(samples) })}\n`);
