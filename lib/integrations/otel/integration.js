'use strict';

// customlabels/otel in the table of integrations (lib/integrations/index.js):
// with register, every context manager an OpenTelemetry SDK registers as the
// global one (whichever @opentelemetry/api copy registers it: the app's, one
// a bundler inlined, Next.js's compiled one) is wrapped in a
// CustomLabelsContextManager, so spans give their ids and attributes as
// labels (lib/register/globals.js observes the API's registry,
// globalThis[Symbol.for('opentelemetry.js.api.1')], for its `context`). A
// manager that cannot be wrapped is kept as it is, with one warning;
// attributes the configuration maps that the manager refuses fall back to
// the default mapping, with one warning.

const { defineIntegration } = require('../kit/integration');

const API = '@opentelemetry/api';
const coreFile = 'core/dist/trace/rpc-metadata.cjs';

const integration = defineIntegration({
  name: 'otel',
  title: 'OpenTelemetry',
  subpath: './otel',
  labels: ['trace_id', 'span_id', 'local_root_span_id'],
  // (API 1.10 pairs with the SDK 3 line: context-async-hooks 3,
  // @opentelemetry/sdk-trace 3.) The SDK's context manager is the app's (or
  // its SDK's): wrapped, never checked.
  packages: { [API]: '>=1.3.0 <1.11.0' },
  testedWith: { '@opentelemetry/context-async-hooks': '>=1.0.0 <4' },
  internals: [
    {
      package: API,
      of: 'span',
      name: "Span#setAttribute, #setAttributes, on the SDK's span class (found from a live span)",
      why: "to learn that an attribute mapped to a label was set after the span was activated; the SDK's span processors see spans start and end only. Checked on the first span",
      check: (span) => {
        const proto = require('./span-watch').spanClassOf(span);
        return proto !== null && typeof proto.setAttributes === 'function';
      },
      // SDK 3: each span's own setAttribute, off the class.
      double: {
        edits: [
          ['@opentelemetry/sdk-trace/dist/Span.cjs', '\tsetAttribute(key, value) {', '\tsetAttributeMoved(key, value) {'],
          ['@opentelemetry/sdk-trace/dist/Span.cjs', '\tconstructor(opts) {\n', '\tconstructor(opts) {\n\t\tthis.setAttribute = this.setAttributeMoved;\n'],
        ],
      },
    },
    {
      package: API,
      of: 'rpc metadata',
      name: "the RPC metadata's context key (Symbol.for('OpenTelemetry SDK Context Key RPC_METADATA')), of each @opentelemetry/core loaded",
      why: 'the framework instrumentations set the route there; the HTTP instrumentation copies it into the span\'s http.route only when the response ends. Checked at the first server span',
      check: (core) => require('./rpc-route').keepsUnderKey(core),
      // Both copies of @opentelemetry/core: the SDK's, and the one
      // instrumentation-http keeps of its own.
      double: {
        edits: [`@opentelemetry/${coreFile}`, `@opentelemetry/instrumentation-http/node_modules/@opentelemetry/${coreFile}`].map((f) => [
          f,
          '"OpenTelemetry SDK Context Key RPC_METADATA"',
          '"OpenTelemetry SDK Context Key RPC_METADATA (moved)"',
        ]),
      },
    },
  ],
  reach: [
    {
      kind: 'global',
      package: API,
      key: Symbol.for('opentelemetry.js.api.1'),
      property: 'context',
      versionOf: (registry) => (registry !== null && typeof registry === 'object' && typeof registry.version === 'string' ? registry.version : null),
      patch(contextManager, { integration, config }) {
        const options = config.otelAttributes === false ? { attributes: false } : { attributes: config.otelAttributes };
        return require('./global').wrapGlobalContextManager(contextManager, options, integration);
      },
      // What it wrapped is the SDK's global, which the SDK unregisters; the
      // span classes are unwrapped.
      unpatch() {
        require('./span-watch').unwatchSpans();
        require('./rpc-route').forgetKey();
      },
    },
  ],
});

module.exports = integration;
