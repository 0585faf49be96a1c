'use strict';

// ns per span of the context manager's own work, without HTTP: a span of the
// OpenTelemetry SDK started, activated three times (as an HTTP server's
// request span is: bench/otel-server.js counts 3 activations per request)
// and ended, median of 7 loops in one process; prints one JSON line.
//   taskset -c 0 node bench/otel-scope.js <mode>
//
//   als            AsyncLocalStorageContextManager (the baseline)
//   customlabels   customlabels/otel's CustomLabelsContextManager over it
//                  (with CUSTOMLABELS_HOOKS=0: the hook-free path)
//
// What it showed (2026-11-26, hooks off, medians of 5 alternating runs): a
// WeakMap from span to its scope cost about 3 µs (Node 24) and 2 µs (Node 26)
// per span, mostly in garbage collection (every key a short-lived span, in
// V8's ephemeron tables), so the scope is kept on the span itself.

const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
const { BasicTracerProvider } = require('@opentelemetry/sdk-trace-base');
const { trace, context, ROOT_CONTEXT } = require('@opentelemetry/api');
const { now } = require('./loops');

const mode = process.argv[2];
let manager = new AsyncLocalStorageContextManager();
if (mode === 'customlabels') {
  const { CustomLabelsContextManager } = require('../lib/integrations/otel');
  manager = new CustomLabelsContextManager({ contextManager: manager });
} else if (mode !== 'als') {
  throw new Error(`unknown mode ${mode} (als, customlabels)`);
}
context.setGlobalContextManager(manager.enable());
const tracer = new BasicTracerProvider().getTracer('bench');
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

function loop(spans) {
  let sink = 0;
  const start = now();
  for (let i = 0; i < spans; i++) {
    const span = tracer.startSpan('request');
    const ctx = trace.setSpan(ROOT_CONTEXT, span);
    for (let k = 0; k < 3; k++) sink += context.with(ctx, () => k);
    span.end();
  }
  if (sink === -1) console.log(sink);
  return (now() - start) / spans;
}

loop(20000);
const samples = [];
for (let i = 0; i < 7; i++) samples.push(loop(50000));
process.stdout.write(`${JSON.stringify({ mode, node: process.version, spanNs: median(samples) })}\n`);
