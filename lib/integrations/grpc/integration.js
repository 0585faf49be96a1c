'use strict';

// customlabels/grpc in the table of integrations (lib/integrations/index.js).
// Servers label their calls, clients keep their callers' labels; under
// register no forwarding (the app's choice: its own instrument() takes
// over, grpc/patch.js).

const { defineIntegration } = require('../kit/integration');

const PACKAGE = '@grpc/grpc-js';
const patch = () => require('./patch');
const src = (file) => `@grpc/grpc-js/build/src/${file}`;
const server = src('server.js');
// A method of grpc-js's Server class, checked on the module.
const serverMethod = (name, why, edits) => ({
  package: PACKAGE,
  of: 'grpc',
  name: `Server#${name}`,
  why,
  check: (grpc) => typeof grpc.Server.prototype[name] === 'function',
  double: { edits },
});

const integration = defineIntegration({
  name: 'grpc',
  title: 'gRPC',
  subpath: './grpc',
  labels: ['rpc.service', 'rpc.method'],
  packages: { [PACKAGE]: '>=1.10.0 <2' },
  internals: [
    serverMethod('register', 'where every handler of every service goes (proto-loader and generated code alike); grpc-js publishes no channel or server interceptor that wraps a handler', [
      [server, '            register(name, handler, serialize, deserialize, type) {', '            registerMoved(name, handler, serialize, deserialize, type) {'],
      [server, 'this.register(attrs.path', 'this.registerMoved(attrs.path'],
    ]),
    // (The double: each server's own addService, off the class.)
    serverMethod('addService', 'the only place that knows which methods an implementation lacks, answered by grpc-js itself', [
      [server, '            addService(service, implementation) {', '            addServiceMoved(service, implementation) {'],
      [server, '            constructor(options) {\n', '            constructor(options) {\n                this.addService = this.addServiceMoved;\n'],
    ]),
    {
      package: PACKAGE,
      of: 'grpc',
      name: 'Channel#createCall',
      why: "below all interceptors: the one place a call's listener and write callbacks can be bound to its caller's context (an interceptor sees the listener but not the write callbacks)",
      check: (grpc) => typeof grpc.Channel === 'function' && typeof grpc.Channel.prototype.createCall === 'function',
      double: {
        edits: [
          [src('channel.js'), 'createCall(method, deadline, host, parentCall, propagateFlags) {', 'createCallMoved(method, deadline, host, parentCall, propagateFlags) {'],
          [src('client-interceptors.js'), 'channel.createCall(', 'channel.createCallMoved('],
        ],
      },
    },
  ],
  reach: [{ kind: 'module', package: PACKAGE, patch: (grpc, context) => patch().patchGrpc(grpc, context), unpatch: () => patch().unpatchGrpc() }],
});

module.exports = integration;
