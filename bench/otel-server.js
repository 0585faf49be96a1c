'use strict';

// An HTTP server traced by the OpenTelemetry SDK (NodeTracerProvider, HTTP
// instrumentation, spans made and ended but not exported) with one of these
// context managers. IPC as bench/http-server.js: 'mark', 'report', 'exit';
// the report also counts context activations (with() calls) per request.
//   node bench/otel-server.js <mode>
//
//   als-cm           AsyncLocalStorageContextManager (the baseline)
//   withlabels-cm    the same, each activation wrapped in one withLabels call
//                    with the span's trace_id and span_id (the naive way to
//                    label spans: what customlabels/otel must not exceed)
//   customlabels-cm  customlabels/otel's CustomLabelsContextManager (with its
//                    default attribute mapping)
//   customlabels-cm-nomap  the same with `attributes: false` (issue #26:
//                    what the mapping costs)
// With CUSTOMLABELS_THREAD_CONTEXT=0 in the environment, customlabels builds
// no thread context records (bench/suites/thread-context.js compares both).

const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
const { trace, ROOT_CONTEXT } = require('@opentelemetry/api');

const mode = process.argv[2];
let requests = 0;
let activations = 0;

function contextManager() {
  if (mode === 'customlabels-cm' || mode === 'customlabels-cm-nomap') {
    const { CustomLabelsContextManager } = require('../lib/integrations/otel');
    const inner = new AsyncLocalStorageContextManager();
    const manager = new CustomLabelsContextManager({ contextManager: inner, ...(mode === 'customlabels-cm-nomap' ? { attributes: false } : {}) });
    countActivations(inner);
    return manager;
  }
  const inner = new AsyncLocalStorageContextManager();
  if (mode === 'withlabels-cm') {
    const { withLabels } = require('..');
    const innerWith = inner.with;
    const removals = { trace_id: null, span_id: null };
    inner.with = function (context, fn, thisArg, ...args) {
      const span = trace.getSpan(context ?? ROOT_CONTEXT);
      const labels = span === undefined ? removals : { trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId };
      return withLabels(labels, () => innerWith.call(this, context, fn, thisArg, ...args));
    };
  } else if (mode !== 'als-cm') {
    throw new Error(`unknown mode ${mode}`);
  }
  countActivations(inner);
  return inner;
}

// Counts with() calls on the inner manager (every activation reaches it).
function countActivations(inner) {
  const w = inner.with;
  inner.with = function (...args) {
    activations++;
    return w.apply(this, args);
  };
}

const provider = new NodeTracerProvider();
provider.register({ contextManager: contextManager() });
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');

registerInstrumentations({ instrumentations: [new HttpInstrumentation()] });
const http = require('node:http');

const server = http.createServer(async (req, res) => {
  requests++;
  await null; // a continuation or two, as a handler that awaits something
  await null;
  res.end('hello world');
});

let mark;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (msg) => {
  if (msg === 'mark') {
    mark = { cpu: process.cpuUsage(), requests, activations };
    process.send({ marked: true });
  } else if (msg === 'report') {
    const cpu = process.cpuUsage(mark.cpu);
    process.send({ cpuMicros: cpu.user + cpu.system, requests: requests - mark.requests, activations: activations - mark.activations });
  } else if (msg === 'exit') {
    process.exit(0);
  }
});
