'use strict';

// Preloaded, with bench/service-instructions.js --collect, into every server
// it counts, in every mode (none too): on SIGURG (a signal the services leave alone: Node-RED
// and close-with-grace stop on SIGUSR2) a full garbage collection, then the number of
// collections done so far written to CUSTOMLABELS_BENCH_COLLECTED (a file),
// so the bench starts each window right after one. Without it, whether a
// window holds a major collection's marking (which slows the stores and
// allocations of everything that runs meanwhile, counted as the requests'
// own work) depends on where the heap's limit falls, not on the mode.

const fs = require('node:fs');
const v8 = require('node:v8');
const vm = require('node:vm');

const file = process.env.CUSTOMLABELS_BENCH_COLLECTED;
delete process.env.CUSTOMLABELS_BENCH_COLLECTED; // (not the service's)
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
let done = 0;
process.on('SIGURG', () => {
  gc();
  done += 1;
  fs.writeFileSync(file, String(done));
});
