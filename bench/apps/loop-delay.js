'use strict';

// Preloaded by bench/services.js into every mode's server (so each pays it
// alike): the event loop's delay over the measured window, for the p99
// evidence. SIGWINCH starts the window (the histogram reset); at SIGTERM the
// server writes { p50, p99, max } (ms the loop came late: each of the
// histogram's 10 ms timer intervals less those 10 ms) to
// CUSTOMLABELS_BENCH_LOOP_DELAY and exits.

const fs = require('node:fs');
const { monitorEventLoopDelay } = require('node:perf_hooks');

const RESOLUTION_MS = 10;
const out = process.env.CUSTOMLABELS_BENCH_LOOP_DELAY;
if (out !== undefined && out !== '') {
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  h.enable();
  process.on('SIGWINCH', () => h.reset());
  process.on('SIGTERM', () => {
    h.disable();
    const ms = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    fs.writeFileSync(out, JSON.stringify({ p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) }));
    process.exit(0);
  });
}
