'use strict';

// customlabels/otel end to end (test/js/fixtures/otel-app.js): an HTTP
// service traced by the real OpenTelemetry SDK (HTTP instrumentation,
// in-memory exporter) serves concurrent requests and hands each to a worker
// thread that continues the trace. At each checkpoint the reader, from
// another process, reads the stopped thread: its Custom Label ABI v1 labels
// and its OTEP 4947 record must be exactly the span's, and those spans must
// be among what the exporter received. Where no span is active, neither
// shows any. By hand (the app's CustomLabelsContextManager, with the local
// root span id, spanLabels and a resource), or with customlabels/register
// (the SDK's own manager, wrapped: the default ids).

const path = require('node:path');
const { runCheckpoints, expectSource } = require('../harness');

const fixture = path.join(__dirname, '..', '..', 'fixtures', 'otel-app.js');
const REQUESTS = 6;
const hex = (n) => new RegExp(`^[0-9a-f]{${n}}$`);

async function run({ env = {} } = {}) {
  let spans;
  let sdk1;
  const r = await runCheckpoints(fixture, {
    args: [String(REQUESTS)],
    env,
    onEvent: (msg) => {
      if (msg.event === 'spans') ({ spans, sdk1 } = msg);
    },
  });
  return { run: r, spans, sdk1, registered: env.CUSTOMLABELS_FIXTURE_WIRING === 'register' };
}

// The fixture ran every checkpoint and exported its spans.
function served({ run: r, spans }) {
  const names = r.checkpoints.map((c) => c.name).sort();
  expect(names).toEqual(['handler', 'untraced-after', 'untraced-before', ...Array(REQUESTS - 1).fill('handler'), ...Array(REQUESTS).fill('worker')].sort());
  expect(spans.length).toBeGreaterThanOrEqual(3 * REQUESTS); // client, server, worker spans
}

// On the main thread and in the worker the reader sees the span as labels
// and as the OTel record. The local root span: the server span itself (its
// parent came in the request's headers: remote); SDK 1.x keeps no
// isRemote, so there the trace's first span in this process, the client's,
// is as right (the fixture's client and server share the process).
function traced({ run: r, spans, sdk1, registered }) {
  const exported = new Set(spans.map((s) => `${s.trace_id}/${s.span_id}`));
  const mainTid = r.checkpoints.find((c) => c.name === 'untraced-before').tid;
  const cps = r.checkpoints.filter((c) => c.name === 'handler' || c.name === 'worker');
  const root = (localRoot) => (localRoot === null ? {} : { local_root_span_id: localRoot });
  const firstOf = (traceId) => spans.find((s) => s.trace_id === traceId && s.parent === null)?.span_id;
  for (const cp of cps) {
    const { labels: want } = cp.expect;
    const seenRoot = cp.seen.row?.labels?.local_root_span_id;
    const localRoot = sdk1 && cp.expect.localRoot !== null && seenRoot === firstOf(want.trace_id) ? seenRoot : cp.expect.localRoot;
    expect({ name: cp.name, code: cp.seen.code, tid: cp.seen.row?.tid }).toEqual({ name: cp.name, code: 0, tid: cp.tid });
    expect(cp.tid === mainTid).toBe(cp.name === 'handler');
    expect(want.trace_id).toMatch(hex(32));
    expect(want.span_id).toMatch(hex(16));
    // The span the thread is in is one the exporter received.
    expect(exported.has(`${want.trace_id}/${want.span_id}`)).toBe(true);
    const { flags, ...labels } = want;
    // ABI v1: the labels, ids included.
    expect(cp.seen.row.labels).toEqual({ ...labels, ...root(localRoot) });
    // OTEP 4947: ids and flags in the header, the rest as attributes.
    const { trace_id: traceId, span_id: spanId, ...attributes } = labels;
    expect(cp.seen.row.otel).toMatchObject({ trace_id: traceId, span_id: spanId, trace_flags: flags });
    expect(cp.seen.row.otel.attributes).toEqual({ ...attributes, ...root(localRoot) });
    expectSource(cp, true);
    // The process context the attributes were resolved through (OTEP 4719),
    // whose schema says where the records are: in otel_thread_ctx_v1, or,
    // hooks off, behind the Node.js walk; by hand with the app's resource.
    expect(cp.seen.row.process_context).toMatchObject({
      version: 2,
      schema_version: cp.hooks ? 'tlsdesc_v1_dev' : 'nodejs_v1_dev',
      ...(registered ? {} : { resource: { 'service.name': 'otel-e2e' } }),
    });
  }
  // Every request had its own trace, and its worker task continued it.
  const handlerTraces = new Set(cps.filter((c) => c.name === 'handler').map((c) => c.expect.labels.trace_id));
  const workerTraces = new Set(cps.filter((c) => c.name === 'worker').map((c) => c.expect.labels.trace_id));
  expect(handlerTraces.size).toBe(REQUESTS);
  expect(workerTraces).toEqual(handlerTraces);
}

// Where no span is active the reader sees neither labels nor a record.
function untraced({ run: r }) {
  for (const cp of r.checkpoints.filter((c) => c.name.startsWith('untraced'))) {
    expectSource(cp, false);
    expect({ name: cp.name, code: cp.seen.code, labels: cp.seen.row.labels, otel: cp.seen.row.otel ?? null }).toEqual({ name: cp.name, code: 0, labels: null, otel: null });
  }
}

function checkpoints(result) {
  traced(result);
  untraced(result);
}

module.exports = { run, served, checkpoints, traced, untraced };
