'use strict';

// How long the labels of a promise reaction stay installed after it ended,
// with hooks on (lib/core/switcher.js 'frame-before': promise reactions switch in
// `before` only). A labelled request ends in a promise reaction that
// schedules the next request's setImmediate; the time from the reaction's
// last statement to that callback's first statement is the window in which
// a sample shows the ended request's labels on Node's and libuv's own work
// between them (the callback's `before` hook switches). Alone on the
// thread, so each window is that machinery's and nothing else's; prints one
// JSON line: the median, 90th and 99th percentile in microseconds, over
// 20,000 requests, and the switch in use.
//   taskset -c 0 node bench/windows.js

const { withLabels, strategy } = require('..');

const now = () => Number(process.hrtime.bigint()) / 1e3;
const windows = [];
let ended = 0;

function request(i) {
  if (i > 0) windows.push(now() - ended);
  if (i === 25000) return report();
  withLabels({ request: `r${i % 100}` }, async () => {
    await null;
    await null;
    setImmediate(request, i + 1);
    ended = now();
  });
}

function report() {
  const xs = windows.slice(5000).sort((a, b) => a - b);
  const at = (q) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))];
  process.stdout.write(`${JSON.stringify({ node: process.version, strategy: strategy().strategy, medianUs: at(0.5), p90Us: at(0.9), p99Us: at(0.99) })}\n`);
}

// Past the switch's asynchronous probe first.
withLabels({ warm: 'up' }, () => {});
setTimeout(() => request(0), 100);
