'use strict';

// customlabels/otel in the table of integrations (lib/integrations/index.js):
// with register, every context manager an OpenTelemetry SDK registers as the
// global one (whichever @opentelemetry/api copy registers it: the app's, one
// a bundler inlined, Next.js's compiled one) is wrapped in a
// CustomLabelsContextManager, so spans give their ids and attributes as
// labels (lib/register/globals.js observes the API's registry). A manager
// that cannot be wrapped is kept as it is, with one warning; attributes the
// configuration maps that the manager refuses fall back to the default
// mapping, with one warning.

const { defineIntegration } = require('../kit/integration');

const API = '@opentelemetry/api';

const integration = defineIntegration({
  name: 'otel',
  title: 'OpenTelemetry',
  subpath: './otel',
  // (API 1.10 pairs with the SDK 3 line: context-async-hooks 3,
  // @opentelemetry/sdk-trace 3.) The SDK's context manager is the app's (or
  // its SDK's): wrapped, never checked.
  packages: { [API]: '>=1.3.0 <1.11.0' },
  testedWith: { '@opentelemetry/context-async-hooks': '>=1.0.0 <4' },
  internals: [
    { package: API, name: "globalThis[Symbol.for('opentelemetry.js.api.1')].context", why: "register only: the registry every copy of the API keeps its global context manager in; the API publishes no hook for a manager being set" },
    { package: API, name: 'Span#setAttribute, #setAttributes (the SDK span class, found from a live span)', why: "to learn that an attribute mapped to a label was set after the span was activated; the SDK's span processors see spans start and end only" },
    { package: API, name: "the RPC metadata's route (Symbol.for('OpenTelemetry SDK Context Key RPC_METADATA'))", why: "the framework instrumentations set the route there; the HTTP instrumentation copies it into the span's http.route only when the response ends" },
  ],
  reach: [
    {
      kind: 'global',
      package: API,
      key: Symbol.for('opentelemetry.js.api.1'),
      property: 'context',
      versionOf: (registry) => (registry !== null && typeof registry === 'object' && typeof registry.version === 'string' ? registry.version : null),
      patch(contextManager, { config }) {
        const options = config.otelAttributes === false ? { attributes: false } : { attributes: config.otelAttributes };
        return require('./global').wrapGlobalContextManager(contextManager, options);
      },
    },
  ],
  // What it wrapped is the SDK's global, which the SDK unregisters.
  unpatch() {},
});

module.exports = integration;
