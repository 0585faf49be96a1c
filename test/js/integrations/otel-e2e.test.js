'use strict';

// Proof from outside for customlabels/otel: an HTTP service traced by the
// real OpenTelemetry SDK (HTTP instrumentation, in-memory exporter) serves
// concurrent requests and hands each to a worker thread that continues the
// trace. At each checkpoint the customlabels reader, from another process,
// reads the stopped thread: its Custom Label ABI v1 labels and its OTEP 4947
// record (ids, flags, attributes resolved through the OTEP 4719 key map)
// must be exactly the span's, and those spans must be among what the
// exporter received. Where no span is active, neither shows any.

const path = require('node:path');
const { runCheckpoints, expectSource } = require('./harness');

const fixture = path.join(__dirname, '..', 'fixtures', 'otel-app.js');
const REQUESTS = 6;

let run;
let spans;
beforeAll(async () => {
  run = await runCheckpoints(fixture, {
    args: [String(REQUESTS)],
    onEvent: (msg) => {
      if (msg.event === 'spans') spans = msg.spans;
    },
  });
}, 120000);

const hex = (n) => new RegExp(`^[0-9a-f]{${n}}$`);

test('the fixture ran every checkpoint and exported its spans', () => {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const names = run.checkpoints.map((c) => c.name).sort();
  expect(names).toEqual(['handler', 'untraced-after', 'untraced-before', ...Array(REQUESTS - 1).fill('handler'), ...Array(REQUESTS).fill('worker')].sort());
  expect(spans.length).toBeGreaterThanOrEqual(3 * REQUESTS); // client, server, worker spans
});

test('on the main thread and in the worker the reader sees the span as labels and as the OTel record', () => {
  const exported = new Set(spans.map((s) => `${s.trace_id}/${s.span_id}`));
  const mainTid = run.checkpoints.find((c) => c.name === 'untraced-before').tid;
  const traced = run.checkpoints.filter((c) => c.name === 'handler' || c.name === 'worker');
  for (const cp of traced) {
    const { labels: want, localRoot } = cp.expect;
    expect({ name: cp.name, code: cp.seen.code, tid: cp.seen.row?.tid }).toEqual({ name: cp.name, code: 0, tid: cp.tid });
    expect(cp.tid === mainTid).toBe(cp.name === 'handler');
    expect(want.trace_id).toMatch(hex(32));
    expect(want.span_id).toMatch(hex(16));
    // The span the thread is in is one the exporter received.
    expect(exported.has(`${want.trace_id}/${want.span_id}`)).toBe(true);
    const { flags, ...labels } = want;
    // ABI v1: the labels, ids included.
    expect(cp.seen.row.labels).toEqual({ ...labels, local_root_span_id: localRoot });
    // OTEP 4947: ids and flags in the header, the rest as attributes.
    const { trace_id: traceId, span_id: spanId, ...attributes } = labels;
    expect(cp.seen.row.otel).toMatchObject({ trace_id: traceId, span_id: spanId, trace_flags: flags });
    expect(cp.seen.row.otel.attributes).toEqual({ ...attributes, local_root_span_id: localRoot });
    expectSource(cp, true);
    // The process context the attributes were resolved through (OTEP 4719),
    // whose schema says where the records are: in otel_thread_ctx_v1, or,
    // hooks off, behind the Node.js walk.
    expect(cp.seen.row.process_context).toMatchObject({
      version: 2,
      schema_version: cp.hooks ? 'tlsdesc_v1_dev' : 'nodejs_v1_dev',
      resource: { 'service.name': 'otel-e2e' },
    });
  }
  // Every request had its own trace, and its worker task continued it.
  const handlerTraces = new Set(traced.filter((c) => c.name === 'handler').map((c) => c.expect.labels.trace_id));
  const workerTraces = new Set(traced.filter((c) => c.name === 'worker').map((c) => c.expect.labels.trace_id));
  expect(handlerTraces.size).toBe(REQUESTS);
  expect(workerTraces).toEqual(handlerTraces);
});

test('where no span is active the reader sees neither labels nor a record', () => {
  for (const cp of run.checkpoints.filter((c) => c.name.startsWith('untraced'))) {
    expectSource(cp, false);
    expect({ name: cp.name, code: cp.seen.code, labels: cp.seen.row.labels, otel: cp.seen.row.otel ?? null }).toEqual({
      name: cp.name,
      code: 0,
      labels: null,
      otel: null,
    });
  }
});
