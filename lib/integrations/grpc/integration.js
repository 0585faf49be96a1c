'use strict';

// customlabels/grpc in the table of integrations (lib/integrations/index.js).

const { defineIntegration } = require('../kit/integration');

const PACKAGE = '@grpc/grpc-js';

const integration = defineIntegration({
  name: 'grpc',
  title: 'gRPC',
  subpath: './grpc',
  packages: { [PACKAGE]: '>=1.10.0 <2' },
  internals: [
    { package: PACKAGE, name: 'Server#register', why: 'where every handler of every service goes (proto-loader and generated code alike); grpc-js publishes no channel or server interceptor that wraps a handler' },
    { package: PACKAGE, name: 'Server#addService', why: 'the only place that knows which methods an implementation lacks, answered by grpc-js itself' },
    { package: PACKAGE, name: 'Channel#createCall', why: "below all interceptors: the one place a call's listener and write callbacks can be bound to its caller's context (an interceptor sees the listener but not the write callbacks)" },
  ],
  reach: [
    {
      kind: 'module',
      package: PACKAGE,
      // Servers label their calls, clients keep their callers' labels; no
      // forwarding (the app's choice: its own instrument() takes over).
      patch(grpc, { version, config }) {
        if (!isModule(grpc)) return;
        const labels = config.labels;
        require('./patch').patchGrpc(integration, grpc, Object.keys(labels).length > 0 ? { labels: () => labels } : undefined, true, version);
      },
    },
  ],
  unpatch: () => require('./patch').unpatchGrpc(),
});

function isModule(grpc) {
  return grpc !== null && typeof grpc === 'object' && typeof grpc.Server === 'function';
}

module.exports = integration;
