'use strict';

// gRPC servers (customlabels/grpc): every call runs, from its handler on,
// under rpc.service and rpc.method (grpc/forwarding.js merges what the
// client forwarded and options.labels(call)). Server#register is where
// every handler of every service goes (proto-loader's and generated
// code's alike); Server#addService tells which methods the implementation
// lacks, which grpc-js answers with its own handler: those run under
// rpc.method=(unimplemented). The call's stream events ('data', 'end',
// 'error', 'cancelled'), which grpc-js emits from its HTTP/2 session's
// callbacks, run in the call's scope.

const { withLabels } = require('../../index');
const { runEventsIn } = require('../kit/emitter');
const { cutValue } = require('../kit/limits');
const { SERVICE, METHOD, warn } = require('./forwarding');

const UNIMPLEMENTED = '(unimplemented)';
const kUnimplemented = Symbol('customlabels.grpc.unimplemented');

// '/demo.v1.Greeter/SayHello' -> ['demo.v1.Greeter', 'SayHello'].
function splitPath(path) {
  const at = path.lastIndexOf('/');
  return at <= 0 ? [cutValue(path.replace(/^\//, '')), ''] : [cutValue(path.slice(1, at)), cutValue(path.slice(at + 1))];
}

// `holder.settings.labelsOf(call, base)`: the options that apply
// (kit/takeover.js).
function patchServer(patcher, Server, holder) {
  const proto = Server.prototype;
  patcher.wrap(proto, 'addService', (addService) =>
    function addService_(service, implementation) {
      const missing = new Set();
      if (service !== null && typeof service === 'object' && implementation !== null && typeof implementation === 'object') {
        for (const [name, attrs] of Object.entries(service)) {
          if (attrs === null || typeof attrs !== 'object' || typeof attrs.path !== 'string') continue;
          if (implementation[name] === undefined && (attrs.originalName === undefined || implementation[attrs.originalName] === undefined)) missing.add(attrs.path);
        }
      }
      this[kUnimplemented] = missing;
      try {
        return addService.call(this, service, implementation);
      } finally {
        this[kUnimplemented] = undefined;
      }
    },
  );
  patcher.wrap(proto, 'register', (register) =>
    function register_(name, handler, serialize, deserialize, type) {
      if (typeof name !== 'string' || typeof handler !== 'function') return register.apply(this, arguments);
      const [service, method] = splitPath(name);
      const unimplemented = this[kUnimplemented] !== undefined && this[kUnimplemented].has(name);
      const base = Object.freeze({ [SERVICE]: service, [METHOD]: unimplemented ? UNIMPLEMENTED : method });
      function labelledHandler(call, callback) {
        let labels;
        try {
          labels = holder.settings.labelsOf(call, base);
        } catch (err) {
          warn(err && err.message);
          labels = base;
        }
        return withLabels(labels, () => {
          if (call !== null && typeof call === 'object' && typeof call.emit === 'function') runEventsIn(call);
          return handler.call(this, call, callback);
        });
      }
      return register.call(this, name, labelledHandler, serialize, deserialize, type);
    },
  );
}

module.exports = { patchServer, UNIMPLEMENTED };
