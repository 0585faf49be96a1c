'use strict';

// customlabels/register in the same process as OpenTelemetry's
// auto-instrumentations (@opentelemetry/auto-instrumentations-node/register)
// and Datadog's dd-trace (dd-trace/init), in both load orders: none of the
// three loses its labels, spans or traces (the OpenTelemetry process
// context is dd-trace's, published first: customlabels says so). Read from outside, every checkpoint has the
// request's method, route and tenant and the ids of OpenTelemetry's active
// span; OpenTelemetry exports its spans (with the route) and dd-trace its
// traces (with the route as resource) to a collector here, on 127.0.0.1.
// The tracers are installed in test/peers/tracers.

const http = require('node:http');
const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen, REGISTERED } = require('./harness');

const fixture = path.join(__dirname, '..', 'fixtures', 'register-tracers.js');
const peers = path.join(__dirname, '..', '..', 'peers', 'tracers', 'node_modules');
const ddInit = path.join(peers, 'dd-trace', 'init.js');
const otelRegister = path.join(peers, '@opentelemetry', 'auto-instrumentations-node', 'build', 'src', 'register.js');
const tenants = ['acme', 'globex', 'initech'];

// What the tracers send: OpenTelemetry's OTLP/HTTP protobuf at /v1/traces;
// dd-trace its msgpack at /v0.x/traces, or OTLP too where OTEL_* variables
// name an endpoint (dd-trace 5 reads them), told apart by its user agent.
// Both carry their strings as UTF-8 bytes.
function collector() {
  const bodies = { otel: [], dd: [] };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const dd = String(req.headers['user-agent']).startsWith('dd-trace-js') || /^\/v0\.\d\/traces/.test(req.url);
      if (dd) bodies.dd.push(body);
      else if (req.url.startsWith('/v1/traces')) bodies.otel.push(body);
      res.setHeader('content-type', 'application/json');
      res.end(req.url.startsWith('/v0') ? '{"rate_by_service":{}}' : '');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, bodies, port: server.address().port })));
}

const ORDERS = [
  ['register, then dd-trace, then OpenTelemetry', `--require customlabels/register --require ${ddInit} --import ${otelRegister}`],
  ['dd-trace, then register, then OpenTelemetry', `--require ${ddInit} --require customlabels/register --import ${otelRegister}`],
  ['dd-trace, then OpenTelemetry, then register', `--require ${ddInit} --import ${otelRegister} --import customlabels/register`],
];

describe.each(ORDERS)('%s', (order, nodeOptions) => {
  let run;
  let responses;
  let sink;

  beforeAll(async () => {
    sink = await collector();
    const requests = [];
    for (let round = 0; round < 2; round++) {
      tenants.forEach((tenant, t) => requests.push({ path: `/api/users/${t}`, headers: { 'x-tenant': tenant, 'x-id': `u${round}-${t}` } }));
    }
    const env = {
      ...REGISTERED,
      NODE_OPTIONS: nodeOptions,
      OTEL_SERVICE_NAME: 'customlabels-test',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${sink.port}/v1/traces`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_NODE_RESOURCE_DETECTORS: 'env',
      OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,express',
      DD_SERVICE: 'customlabels-test',
      DD_TRACE_AGENT_URL: `http://127.0.0.1:${sink.port}`,
      DD_TRACE_FLUSH_INTERVAL: '100',
      DD_INSTRUMENTATION_TELEMETRY_ENABLED: 'false',
      DD_REMOTE_CONFIGURATION_ENABLED: 'false',
      DD_TRACE_STARTUP_LOGS: 'false',
      DD_CRASHTRACKING_ENABLED: 'false',
      DD_RUNTIME_METRICS_ENABLED: 'false',
      DD_PROFILING_ENABLED: 'false',
      DD_APPSEC_ENABLED: 'false',
      DD_IAST_ENABLED: 'false',
      DD_DYNAMIC_INSTRUMENTATION_ENABLED: 'false',
      DD_TRACE_LOG_LEVEL: 'error',
    };
    ({ run, responses } = await serveUnderLoad(fixture, [], requests, 3, env));
  }, 120000);

  afterAll(() => sink.server.close());

  test(`${order}: every request was served, and the app exited cleanly`, () => {
    // dd-trace publishes an OTEP 4719 process context of its own at
    // start, before customlabels needs one, which then publishes none: a
    // second after its first label customlabels says so, once
    // (lib/core/other-writers.js; docs/readers.md), where the app still
    // runs then. Nothing else reaches stderr.
    const lines = run.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('(Use `node --trace-warnings'));
    const otherWriter = /^\(node:\d+\) \[CUSTOMLABELS_OTHER_WRITER\] Warning: customlabels: another writer published the process context \(OTEL_CTX\) first/;
    expect(lines.filter((l) => !otherWriter.test(l))).toEqual([]);
    expect(lines.filter((l) => otherWriter.test(l)).length).toBeLessThanOrEqual(1);
    expect(run.code).toBe(0);
    expect(responses.map((r) => r.status)).toEqual(Array(6).fill(200));
  });

  test(`${order}: customlabels: at every checkpoint the reader sees method, route, tenant and OpenTelemetry's active span ids`, () => {
    expect(run.checkpoints).toHaveLength(6);
    for (const cp of run.checkpoints) expect(Object.keys(cp.expect).sort()).toEqual(['method', 'route', 'span_id', 'tenant', 'trace_id']);
    expectEveryCheckpointSeen(run.checkpoints);
  });

  test(`${order}: OpenTelemetry: a span was active in every handler, and its spans reached the collector with the route`, () => {
    const { seen } = run.events.find((e) => e.event === 'result');
    expect(seen.map((s) => s.otel)).toEqual(Array(6).fill(true));
    const otel = Buffer.concat(sink.bodies.otel);
    expect(otel.includes('/api/users/:id')).toBe(true);
    expect(otel.includes('customlabels-test')).toBe(true);
  });

  test(`${order}: dd-trace: a span was active in every handler, and its traces reached the agent with the route`, () => {
    const { seen } = run.events.find((e) => e.event === 'result');
    expect(seen.map((s) => s.dd)).toEqual(Array(6).fill('express.request'));
    const dd = Buffer.concat(sink.bodies.dd);
    expect(dd.includes('/api/users/:id')).toBe(true);
  });
});
