'use strict';

// customlabels/otel with the real OpenTelemetry SDK, in process: the labels
// (read back through the ABI pointer) and the thread context record (its raw
// bytes, decoded here by the OTEP's layout) follow the active span through
// startActiveSpan, awaits, bind(), EventEmitters and attach(), and are gone
// where no span is active. Read from outside in otel-e2e.test.js.

const { EventEmitter } = require('node:events');
const util = require('node:util');
const { trace, context, ROOT_CONTEXT } = require('@opentelemetry/api');
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
const { CustomLabelsContextManager } = require('../../../lib/integrations/otel');
const { withLabels, currentLabels, strategy } = require('../../..');
const { addonPath } = require('../helpers');

const binding = require(addonPath);

// The label set address a reader finds on this thread (0n: none): the one
// the hooks switch into custom_labels_current_set, or, hooks off
// (CUSTOMLABELS_HOOKS=0), the one the walk through V8's continuation data
// reaches.
function readersSet() {
  const s = strategy();
  if (s.hooks) return binding.testing.currentSetAddress();
  expect(binding.testing.currentSetAddress()).toBe(0n);
  const w = binding.walkNodeContext(binding.testing.nodeDiscovery(), s.nodeLayout);
  expect(['found', 'no-frame', 'not-in-frame', 'detached']).toContain(w.status);
  return w.status === 'found' ? w.labelSet : 0n;
}

// The record a reader finds on this thread, the same way (null: none); hooks
// off, the walk's record slot holds the record its set carries.
function readersRecord() {
  const s = strategy();
  if (s.hooks) return binding.testing.currentRecord();
  expect(binding.testing.currentRecord()).toBeNull();
  const set = readersSet();
  if (set === 0n) return null;
  const w = binding.walkNodeContext(binding.testing.nodeDiscovery(), s.nodeLayout);
  const { address, bytes } = binding.testing.recordOfSet(set);
  expect(w.record).toBe(address);
  return bytes;
}

// The OTEP 4947 record as a reader lays it out (null: no record).
function currentRecord() {
  const b = readersRecord();
  if (b === null) return null;
  const attrs = [];
  const size = b.readUInt16LE(26);
  for (let i = 28; i + 2 <= 28 + size; ) {
    const len = b[i + 1];
    attrs.push([b[i], b.subarray(i + 2, i + 2 + len).toString('utf8')]);
    i += 2 + len;
  }
  return {
    traceId: b.subarray(0, 16).toString('hex'),
    spanId: b.subarray(16, 24).toString('hex'),
    valid: b[24],
    flags: b[25],
    values: attrs.map(([, v]) => v),
  };
}

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const manager = new CustomLabelsContextManager({ ids: ['trace_id', 'span_id', 'local_root_span_id'], spanLabels: (span) => ({ op: span.name }) });
const tracer = provider.getTracer('customlabels-test');

beforeAll(() => {
  context.setGlobalContextManager(manager.enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(() => {
  context.disable();
  trace.disable();
});

const ids = (span) => ({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });

test('startActiveSpan: labels and record carry the span, merged over the current labels, across an await', async () => {
  await withLabels({ route: '/checkout' }, () =>
    tracer.startActiveSpan('checkout', async (span) => {
      const expected = { route: '/checkout', op: 'checkout', ...ids(span), local_root_span_id: span.spanContext().spanId };
      expect(currentLabels()).toEqual(expected);
      await new Promise((r) => setTimeout(r, 2));
      expect(currentLabels()).toEqual(expected);
      const record = currentRecord();
      expect(record).toMatchObject({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, valid: 1, flags: 1 });
      // trace_id and span_id are in the header, not repeated as attributes.
      // (Which labels are attributes depends on the process-wide key map,
      // which other test files in this Jest worker fill too: exact
      // attributes are asserted from outside, in otel-e2e.test.js.)
      for (const v of record.values) expect(['/checkout', 'checkout', span.spanContext().spanId]).toContain(v);
      span.end();
    }),
  );
  expect(currentLabels()).toEqual({});
  expect(currentRecord()).toBeNull();
});

test('a child span: its own span_id, the local root of the parent, back to the parent after it', () => {
  tracer.startActiveSpan('parent', (parent) => {
    tracer.startActiveSpan('child', (child) => {
      expect(currentLabels()).toEqual({ op: 'child', ...ids(child), local_root_span_id: parent.spanContext().spanId });
      expect(currentRecord().spanId).toBe(child.spanContext().spanId);
      child.end();
    });
    expect(currentLabels()).toEqual({ op: 'parent', ...ids(parent), local_root_span_id: parent.spanContext().spanId });
    parent.end();
  });
});

test('where the context holds no span the ids are removed and the record carries none', () => {
  withLabels({ tenant: 'acme' }, () =>
    tracer.startActiveSpan('with-span', (span) => {
      context.with(trace.deleteSpan(context.active()), () => {
        expect(currentLabels()).toEqual({ tenant: 'acme', op: 'with-span' });
        const record = currentRecord();
        expect(record.traceId).toBe('0'.repeat(32));
        expect(record.spanId).toBe('0'.repeat(16));
        expect(record.flags).toBe(0);
      });
      context.with(ROOT_CONTEXT, () => expect(currentLabels()).toEqual({ tenant: 'acme', op: 'with-span' }));
      span.end();
    }),
  );
  // No span and no trace labels to remove: nothing changes.
  withLabels({ tenant: 'acme' }, () => context.with(ROOT_CONTEXT, () => expect(currentLabels()).toEqual({ tenant: 'acme' })));
});

test('bind(): a bound function and a bound EventEmitter run under the span, called from elsewhere', async () => {
  const span = tracer.startSpan('bound');
  const ctx = trace.setSpan(ROOT_CONTEXT, span);
  const fn = context.bind(ctx, () => currentLabels());
  const emitter = context.bind(ctx, new EventEmitter());
  let fromEmitter;
  emitter.on('x', () => (fromEmitter = currentLabels()));
  await new Promise((r) => setImmediate(r));
  const expected = { op: 'bound', ...ids(span), local_root_span_id: span.spanContext().spanId };
  expect(withLabels({ other: 'scope' }, fn)).toEqual({ other: 'scope', ...expected });
  emitter.emit('x');
  expect(fromEmitter).toEqual(expected);
  span.end();
});

test('a non-sampled span is published with trace flags 0; an invalid span context clears', () => {
  const unsampled = trace.wrapSpanContext({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 0 });
  context.with(trace.setSpan(ROOT_CONTEXT, unsampled), () => {
    expect(currentLabels()).toMatchObject({ trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) });
    expect(currentRecord()).toMatchObject({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), flags: 0, valid: 1 });
    const invalid = trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 });
    context.with(trace.setSpan(ROOT_CONTEXT, invalid), () => {
      expect(currentLabels()).toEqual({});
      expect(currentRecord()).toBeNull();
    });
  });
});

test('attach(): labels for the rest of the scope, restored by dispose()', () => {
  if (typeof manager.attach !== 'function') throw new Error('context-async-hooks without attach()');
  const span = tracer.startSpan('attached');
  withLabels({ route: '/a' }, () => {
    const token = manager.attach(trace.setSpan(ROOT_CONTEXT, span));
    expect(currentLabels()).toMatchObject({ route: '/a', ...ids(span) });
    expect(trace.getActiveSpan()).toBe(span);
    token.dispose();
    expect(currentLabels()).toEqual({ route: '/a' });
  });
  span.end();
});

test('re-activating a span inside its own scope, or clearing it again, reuses the sets built', () => {
  const span = tracer.startSpan('reused');
  const ctx = trace.setSpan(ROOT_CONTEXT, span);
  const address = readersSet;
  context.with(ctx, () => {
    const own = address();
    context.with(ctx, () => expect(address()).toBe(own)); // no new set: the same one
    const cleared = context.with(ROOT_CONTEXT, address);
    expect(cleared).not.toBe(own);
    expect(context.with(ROOT_CONTEXT, address)).toBe(cleared); // built once
  });
  span.end();
});

// A span's ids and labels are remembered on the span (under a symbol, not
// enumerable by Object.keys or JSON) or, for a span that takes no property,
// beside it: either way built once, whatever is activated again.
test('a span remembers its set; a frozen span and a Proxy span are labelled the same and built once', () => {
  const span = tracer.startSpan('remembered');
  const keysBefore = Object.keys(span);
  const once = (s) => {
    const ctx = trace.setSpan(ROOT_CONTEXT, s);
    const first = context.with(ctx, () => ({ set: readersSet(), labels: currentLabels() }));
    const again = context.with(ctx, readersSet);
    expect(again).toBe(first.set);
    expect(first.labels).toMatchObject(ids(s));
    return first.set;
  };
  const copyBefore = { ...span };
  once(span);
  // Nothing of customlabels' is visible on the span to the application.
  expect(Object.keys(span)).toEqual(keysBefore);
  expect(util.isDeepStrictEqual({ ...span }, copyBefore)).toBe(true);
  expect(util.inspect(span)).not.toMatch(/customlabels\.otel scope/);
  const frozen = Object.freeze(trace.wrapSpanContext({ traceId: '12'.repeat(16), spanId: '34'.repeat(8), traceFlags: 1 }));
  expect(once(frozen)).not.toBe(0n);
  const refusing = new Proxy(trace.wrapSpanContext({ traceId: '56'.repeat(16), spanId: '78'.repeat(8), traceFlags: 1 }), {
    set: () => false,
    defineProperty: () => false,
  });
  expect(once(refusing)).not.toBe(0n);
  // A get trap that answers (or throws) for any key never stands in for
  // the scope, and never throws into the activation.
  const target = trace.wrapSpanContext({ traceId: '9a'.repeat(16), spanId: 'bc'.repeat(8), traceFlags: 1 });
  const inventive = new Proxy(target, {
    get: (t, key, receiver) => (typeof key === 'symbol' ? { span: receiver, trace: null } : Reflect.get(t, key, receiver)),
  });
  expect(once(inventive)).not.toBe(0n);
  const throwing = new Proxy(trace.wrapSpanContext({ traceId: 'de'.repeat(16), spanId: 'f0'.repeat(8), traceFlags: 1 }), {
    get: (t, key, receiver) => (typeof key === 'symbol' ? `${key}` : Reflect.get(t, key, receiver)),
  });
  expect(once(throwing)).not.toBe(0n);
  span.end();
});

test('uppercase span ids (valid for the API) are published lowercase', () => {
  const upper = trace.wrapSpanContext({ traceId: 'AB'.repeat(16), spanId: 'CD'.repeat(8), traceFlags: 1 });
  context.with(trace.setSpan(ROOT_CONTEXT, upper), () => {
    expect(currentLabels()).toMatchObject({ trace_id: 'ab'.repeat(16), span_id: 'cd'.repeat(8) });
    expect(currentRecord()).toMatchObject({ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8) });
  });
});

test('a span continuing a remote parent is its own local root', () => {
  const remote = trace.wrapSpanContext({ traceId: 'e'.repeat(32), spanId: 'f'.repeat(16), traceFlags: 1, isRemote: true });
  context.with(trace.setSpan(ROOT_CONTEXT, remote), () =>
    tracer.startActiveSpan('server', (span) => {
      expect(currentLabels()).toMatchObject({ trace_id: 'e'.repeat(32), local_root_span_id: span.spanContext().spanId });
      tracer.startActiveSpan('child', (child) => {
        expect(currentLabels()).toMatchObject({ span_id: child.spanContext().spanId, local_root_span_id: span.spanContext().spanId });
        child.end();
      });
      span.end();
    }),
  );
});

test('the process context is published once records are used', () => {
  tracer.startActiveSpan('pc', (span) => {
    expect(binding.processContext()).toMatchObject({ state: 'published' });
    span.end();
  });
});

describe('spanLabels that fail never fail the application', () => {
  const run = (spanLabels) => {
    const m = new CustomLabelsContextManager({ contextManager: new AsyncLocalStorageContextManager(), spanLabels });
    const span = tracer.startSpan('failing');
    const seen = m.with(trace.setSpan(ROOT_CONTEXT, span), () => currentLabels());
    span.end();
    return { seen, span };
  };

  test('a throwing spanLabels: the span keeps its ids, one warning', () => {
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const { seen, span } = run(() => {
        throw new Error('boom');
      });
      expect(seen).toEqual(ids(span));
      // Labels that are not labels: the same.
      const bad = run(() => ({ bad: {} }));
      expect(bad.seen).toEqual(ids(bad.span));
      expect(emitWarning.mock.calls.map((c) => c[1].code)).toEqual(['CUSTOMLABELS_SPAN_LABELS']);
    } finally {
      emitWarning.mockRestore();
    }
  });

  test('a spanLabels that activates its own span does not recurse', () => {
    let calls = 0;
    const m = new CustomLabelsContextManager({
      contextManager: new AsyncLocalStorageContextManager(),
      spanLabels: (span) => {
        calls++;
        return m.with(trace.setSpan(ROOT_CONTEXT, span), () => ({ inner: String(currentLabels().span_id === span.spanContext().spanId) }));
      },
    });
    const span = tracer.startSpan('self');
    expect(m.with(trace.setSpan(ROOT_CONTEXT, span), () => currentLabels())).toEqual({ inner: 'true', ...ids(span) });
    expect(calls).toBe(1);
    span.end();
  });
});

describe('options', () => {
  const invalid = (options, name) =>
    expect(() => new CustomLabelsContextManager(options)).toThrow(
      expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_OPTION', message: expect.stringContaining(`options.${name}`) }),
    );
  test('bad options are TypeErrors with a code', () => {
    invalid({ ids: ['trace'] }, 'ids');
    invalid({ ids: 'trace_id' }, 'ids');
    invalid({ spanLabels: 42 }, 'spanLabels');
    invalid({ contextManager: {} }, 'contextManager');
    invalid({ resource: 'svc' }, 'resource');
    expect(() => new CustomLabelsContextManager(null)).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_OPTION' }));
  });

  test('ids picks the labels; a context manager of the caller is wrapped', () => {
    const inner = new AsyncLocalStorageContextManager();
    const only = new CustomLabelsContextManager({ contextManager: inner, ids: ['trace_id'] });
    const span = tracer.startSpan('only-trace');
    only.with(trace.setSpan(ROOT_CONTEXT, span), () => {
      expect(currentLabels()).toEqual({ trace_id: span.spanContext().traceId });
      expect(inner.active()).toBe(only.active());
      // The record still has both ids.
      expect(currentRecord()).toMatchObject({ spanId: span.spanContext().spanId });
    });
    span.end();
  });
});

describe('span attributes as labels', () => {
  const attributeTracer = provider.getTracer('customlabels-attributes');
  const labelsOf = (span) => {
    const { trace_id, span_id, local_root_span_id, ...rest } = currentLabels();
    expect({ trace_id, span_id }).toEqual(ids(span));
    return rest;
  };

  test('the default mapping: http.route, http.request.method, rpc, messaging, graphql, next.route (its suffix cut)', () => {
    const span = attributeTracer.startSpan('mapped', {
      attributes: {
        'http.route': '/users/:id',
        'http.request.method': 'GET',
        'http.method': 'POST', // the older name loses to the newer
        'rpc.service': 'demo.v1.Greeter',
        'rpc.method': 'Hello',
        'messaging.destination.name': 'mail',
        'graphql.operation.name': 'GetUser',
        'graphql.operation.type': 'query',
        'url.full': 'http://example.com/users/1?x', // high cardinality: never mapped
        'other.attribute': 'x',
      },
    });
    context.with(trace.setSpan(ROOT_CONTEXT, span), () => {
      expect(labelsOf(span)).toEqual({
        op: 'mapped',
        route: '/users/:id',
        method: 'GET',
        'rpc.service': 'demo.v1.Greeter',
        'rpc.method': 'Hello',
        queue: 'mail',
        'graphql.operation': 'GetUser',
        'graphql.type': 'query',
      });
    });
    span.end();
    const next = attributeTracer.startSpan('next', { attributes: { 'next.route': '/api/items/[id]/route' } });
    context.with(trace.setSpan(ROOT_CONTEXT, next), () => expect(labelsOf(next)).toEqual({ op: 'next', route: '/api/items/[id]' }));
    next.end();
  });

  test('an attribute set after the span was activated reaches every continuation of it from the next switch on, made before the change too; other spans are unaffected', async () => {
    const span = attributeTracer.startSpan('late');
    const other = attributeTracer.startSpan('other', { attributes: { 'http.route': '/other' } });
    const seen = {};
    let timer;
    let otherTimer;
    context.with(trace.setSpan(ROOT_CONTEXT, other), () => {
      otherTimer = new Promise((resolve) => setTimeout(() => resolve(labelsOf(other)), 5));
    });
    await context.with(trace.setSpan(ROOT_CONTEXT, span), async () => {
      seen.before = labelsOf(span);
      // A continuation made before the change.
      timer = new Promise((resolve) => setTimeout(() => resolve(labelsOf(span)), 5));
      await null;
      span.setAttribute('http.route', '/late/:id');
      seen.sameTurn = labelsOf(span);
      await null;
      seen.afterAwait = labelsOf(span);
      span.setAttributes({ 'rpc.method': 'Late', 'http.request.method': 'PUT' });
      await new Promise((r) => setImmediate(r));
      seen.afterBoth = labelsOf(span);
    });
    seen.timer = await timer;
    expect(seen).toEqual({
      before: { op: 'late' },
      sameTurn: { op: 'late', route: '/late/:id' },
      afterAwait: { op: 'late', route: '/late/:id' },
      afterBoth: { op: 'late', route: '/late/:id', 'rpc.method': 'Late', method: 'PUT' },
      timer: { op: 'late', route: '/late/:id', 'rpc.method': 'Late', method: 'PUT' },
    });
    expect(await otherTimer).toEqual({ op: 'other', route: '/other' });
    span.end();
    other.end();
  });

  test('values are cut to what readers keep; numbers and booleans count, arrays do not', () => {
    const span = attributeTracer.startSpan('values', { attributes: { 'http.route': `/${'r'.repeat(80)}`, 'rpc.method': 7, 'rpc.service': ['a', 'b'] } });
    context.with(trace.setSpan(ROOT_CONTEXT, span), () => expect(labelsOf(span)).toEqual({ op: 'values', route: `/${'r'.repeat(52)}`, 'rpc.method': '7' }));
    span.end();
  });

  test('options.attributes adds to the mapping or turns entries off; false turns it off; high-cardinality attributes are refused unless asked for', () => {
    const inner = new AsyncLocalStorageContextManager();
    const custom = new CustomLabelsContextManager({ contextManager: inner, attributes: { 'app.tenant': 'tenant', 'rpc.method': null, 'user.id': { label: 'user', highCardinality: true } } });
    const span = attributeTracer.startSpan('custom', { attributes: { 'app.tenant': 'acme', 'rpc.method': 'Off', 'user.id': 'u1', 'http.route': '/r' } });
    custom.with(trace.setSpan(ROOT_CONTEXT, span), () => expect(labelsOf(span)).toEqual({ tenant: 'acme', user: 'u1', route: '/r' }));
    const none = new CustomLabelsContextManager({ contextManager: new AsyncLocalStorageContextManager(), attributes: false });
    none.with(trace.setSpan(ROOT_CONTEXT, span), () => expect(labelsOf(span)).toEqual({}));
    span.end();
    for (const attribute of ['url.full', 'user.id', 'http.target', 'db.statement', 'session_id']) {
      expect(() => new CustomLabelsContextManager({ attributes: { [attribute]: 'x' } })).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_HIGH_CARDINALITY' }));
    }
    expect(() => new CustomLabelsContextManager({ attributes: { a: 42 } })).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_OPTION' }));
    expect(() => new CustomLabelsContextManager({ attributes: 'http.route' })).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_OPTION' }));
  });
});
