'use strict';

// gRPC servers and clients (`customlabels/grpc`), @grpc/grpc-js 1.10+:
//
//   const grpc = require('@grpc/grpc-js');
//   require('customlabels/grpc').instrument(grpc, {
//     labels: (call) => ({ tenant: call.metadata.get('x-tenant')[0] }), // optional
//     forward: true,  // clients send the current labels to the server
//   });
//
// Server (grpc/server.js): every call runs, from its handler to its last
// write, under rpc.service and rpc.method ('(unimplemented)' for a method
// the implementation lacks), over the labels the client forwarded (unless
// `forwarded: false`), with options.labels(call) on top. Client
// (grpc/client.js): a call's callbacks, stream events and awaits run under
// the labels of the scope that made it; with `forward: true` (or
// forwardingInterceptor() on the clients that should) it sends them along
// (grpc/forwarding.js). Bad label data from a client never fails a call:
// it runs with what is valid, and one warning (CUSTOMLABELS_RPC_LABELS).

const errors = require('../../core/errors');
const { byHand } = require('../kit/integration');
const { versionOfExports } = require('../kit/versions');
const integration = require('./integration');
const { isGrpc, checkOptions } = require('./patch');
const { forwardedPayload, withPayload, METADATA_KEY } = require('./forwarding');

// Patches a @grpc/grpc-js module's servers and clients, once per copy. The
// first call's options apply, except over customlabels/register's: an app
// that calls instrument() itself takes over with its own options. Returns
// whether these options apply (false: patched already by the app, or a
// grpc-js this version does not support, with one warning).
function instrument(grpc, options) {
  if (!isGrpc(grpc)) throw errors.invalidOption('', "the @grpc/grpc-js module (require('@grpc/grpc-js'))", grpc);
  checkOptions(options);
  return integration.apply(integration.reach[0], grpc, { version: versionOfExports(grpc, '@grpc/grpc-js'), config: byHand(options) }) === true;
}

// A client interceptor that forwards the current labels (for the clients
// that should, where instrument() was not given forward: true):
//   new Client(address, credentials, { interceptors: [forwardingInterceptor(grpc)] })
function forwardingInterceptor(grpc) {
  if (grpc === null || typeof grpc !== 'object' || typeof grpc.InterceptingCall !== 'function') {
    throw errors.invalidOption('', "the @grpc/grpc-js module (require('@grpc/grpc-js'))", grpc);
  }
  const { InterceptingCall } = grpc;
  return function customlabelsForwarding(options, nextCall) {
    const payload = forwardedPayload();
    return new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        next(withPayload(metadata, payload), listener);
      },
    });
  };
}

module.exports = { instrument, forwardingInterceptor, METADATA_KEY };
