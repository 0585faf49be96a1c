'use strict';

// OpenTelemetry in test/versions: one SDK line with the API it pairs with
// (the fixture, test/js/fixtures/otel-app.js, traces HTTP with its
// instrumentation and builds its tracer provider the way that line does:
// test/js/fixtures/tracer-provider.js). test/versions/suites.js says what a
// suite holds.

const semver = require('semver');
const e2e = require('../../js/integrations/e2e/otel');

const sdk12 = (api, sdk, instrumentation, extra = {}) => ({
  set: {
    packages: {
      '@opentelemetry/api': api,
      '@opentelemetry/context-async-hooks': sdk,
      '@opentelemetry/sdk-trace-base': sdk,
      '@opentelemetry/sdk-trace-node': sdk,
      '@opentelemetry/instrumentation': instrumentation,
      '@opentelemetry/instrumentation-http': instrumentation,
    },
    ...(extra.legacyPeerDeps ? { legacyPeerDeps: true } : {}),
  },
  ...(extra.wirings ? { wirings: extra.wirings } : {}),
});
// SDK 3: one @opentelemetry/sdk-trace in place of sdk-trace-base and -node,
// its core, API 1.10.
const sdk3 = (api, sdk, instrumentation, http = instrumentation) => ({
  set: {
    packages: {
      '@opentelemetry/api': api,
      '@opentelemetry/context-async-hooks': sdk,
      '@opentelemetry/sdk-trace': sdk,
      '@opentelemetry/core': sdk,
      '@opentelemetry/instrumentation': instrumentation,
      '@opentelemetry/instrumentation-http': http,
    },
  },
});
const SDK3_INSTRUMENTATION = { '3.0.0': ['0.300.0', '0.300.0'], '3.1.0': ['0.301.1', '0.301.0'], '3.1.1': ['0.301.1', '0.301.0'] };
const sdk3Of = (api, sdk) => sdk3(api, sdk, ...(SDK3_INSTRUMENTATION[sdk] ?? SDK3_INSTRUMENTATION['3.1.1']));
const gte = (a, b) => semver.gte(a, b);
const otelApi = (v) =>
  gte(v, '1.10.0') ? sdk3Of(v, '3.1.1') : gte(v, '1.9.0') ? sdk12(v, '2.12.1', '0.223.0') : gte(v, '1.3.0') ? sdk12(v, '1.8.0', '0.34.0') : sdk12(v, '1.7.0', '0.33.0', { wirings: ['register'] });
// context-async-hooks 1.x with the oldest API the range takes (1.0.1-1.7
// declare an older API as their peer: installed past it, as they run).
const SDK2_INSTRUMENTATION = { '2.0.0': '0.200.0' };
const otelManager = (v) =>
  semver.major(v) >= 3 ? sdk3Of('1.10.0', v) : semver.major(v) === 2 ? sdk12('1.9.1', v, SDK2_INSTRUMENTATION[v] ?? '0.223.0') : sdk12('1.3.0', v, '0.34.0', { legacyPeerDeps: true });

module.exports = {
  ...e2e,
  // (`method` too, from span attributes; under register every request also
  // carries it from the HTTP integration, the same value, so an unpatched
  // OpenTelemetry is judged by the ids it must not show.)
  published: ['trace_id', 'span_id', 'local_root_span_id', 'op'],
  run: (entry, env) => e2e.run({ env }),
  // (The fixture's checkpoints expect { labels, localRoot }.)
  expectedLabels: (cp) => (cp.expect === null ? null : { ...cp.expect.labels, ...(cp.expect.localRoot ? { local_root_span_id: cp.expect.localRoot } : {}) }),
  builders: { '@opentelemetry/api': otelApi, '@opentelemetry/context-async-hooks': otelManager },
  hand: (entry) => [
    entry('@opentelemetry/api', '1.9.1', 'newest SDK 1 (setAttributes from the constructor since 1.19)', { ...sdk12('1.9.1', '1.30.1', '0.57.2') }),
    entry('@opentelemetry/api', '1.9.1', 'context-async-hooks 3 with API 1.9 and SDK 2 (its peer admits API 1.x)', { packages: { '@opentelemetry/context-async-hooks': '3.1.1' } }),
  ],
  notes: {
    '@opentelemetry/api@1.2.0': 'register only: by hand the app makes the manager itself',
    '@opentelemetry/api@1.3.0': 'with SDK 1.8 (addSpanProcessor, parentSpanId)',
    '@opentelemetry/api@1.10.0': 'SDK 3: @opentelemetry/sdk-trace, TracerProvider without register()',
    '@opentelemetry/context-async-hooks@1.0.0': 'the one 1.x whose peer admits API 1.3; once() listeners of a bound emitter fire on every emit until 1.6, without customlabels too',
    '@opentelemetry/context-async-hooks@2.0.0': 'SpanImpl, parentSpanContext; spanProcessors option',
  },
};
