'use strict';

// gRPC servers and clients (`customlabels/grpc`), @grpc/grpc-js 1.10+:
//
//   const grpc = require('@grpc/grpc-js');
//   require('customlabels/grpc').instrument(grpc, {
//     labels: (call) => ({ tenant: call.metadata.get('x-tenant')[0] }), // optional
//     forward: true,  // clients send the current labels to the server
//   });
//
// Server. Every call runs, from its handler on, under
//   rpc.service  the full service name ('demo.v1.Greeter')
//   rpc.method   the method name ('SayHello'); '(unimplemented)' for a method
//                the service declares and the implementation lacks (answered
//                by grpc-js's own handler)
// over the labels the client forwarded (if any, and `forwarded` is not
// false; within the readers' limits, lowest precedence, never a trace id
// or rpc.*), with
// options.labels(call) on top. The four kinds are covered from the call's
// start to its last write: the handler and everything it causes (awaits,
// timers, writes), and the call's stream events ('data', 'end', 'error',
// 'cancelled'), which grpc-js emits from its HTTP/2 session's callbacks:
// they are run in the call's scope. A path no service registered is
// answered by grpc-js before any handler runs, with no code of the app.
// This module patches Server#register (where every handler of every
// service goes, proto-loader's and generated code's alike) and
// Server#addService (to know the unimplemented methods), once per grpc-js
// copy; @opentelemetry/instrumentation-grpc wraps the same handlers, before
// or after.
//
// Client. With `forward: true` (or forwardingInterceptor() on the clients
// that should), a call sends the labels current where it is made in one
// binary metadata entry, `customlabels-bin` (JSON), without the trace ids
// (the server's span has its own) and within the readers' limits. Whether
// or not it forwards, a call's callbacks, stream events and awaits run
// under the labels of the scope that made it: grpc-js runs them from its
// connection's callbacks, in the context of whichever call opened the
// connection, so every call's listener is bound to its caller's context
// (Channel#createCall, below all interceptors).
//
// Bad label data from a client never fails a call: it runs with what is
// valid, and the process gets one warning (CUSTOMLABELS_RPC_LABELS).

const { AsyncResource } = require('node:async_hooks');
const { withLabels, currentLabels } = require('../index');
const errors = require('../core/errors');
const { warnOnce } = require('../core/warnings');
const { addLimited, mergeCarried, parseCarried, TRACE_IDS } = require('./carried');
const { PARCA, cutValue } = require('./reader-limits');

const SERVICE = 'rpc.service';
const METHOD = 'rpc.method';
const UNIMPLEMENTED = '(unimplemented)';
const METADATA_KEY = 'customlabels-bin';
const RESERVED = new Set([SERVICE, METHOD]);
const NOT_FORWARDED = new Set([SERVICE, METHOD, ...TRACE_IDS]);
const { MAX_LABELS } = PARCA;
const hasOwn = Object.prototype.hasOwnProperty;

const kPatched = Symbol.for('customlabels.grpc.patched');
const kUnimplemented = Symbol('customlabels.grpc.unimplemented');

const warn = (reason) =>
  warnOnce('rpc-labels', `customlabels: RPC labels not published as given (${reason}); calls run with the labels that are valid`, 'CUSTOMLABELS_RPC_LABELS');

function readOptions(options) {
  if (options === undefined || options === null) return { ownFn: null, forwarded: true, forward: false };
  if (typeof options !== 'object') throw errors.invalidOption('', 'an object', options);
  const { labels, forwarded = true, forward = false } = options;
  if (labels !== undefined && labels !== null && typeof labels !== 'function') throw errors.invalidOption('labels', 'a function of the call', labels);
  if (typeof forwarded !== 'boolean') throw errors.invalidOption('forwarded', 'a boolean', forwarded);
  if (typeof forward !== 'boolean') throw errors.invalidOption('forward', 'a boolean', forward);
  return { ownFn: labels ?? null, forwarded, forward };
}

// '/demo.v1.Greeter/SayHello' -> ['demo.v1.Greeter', 'SayHello'].
function splitPath(path) {
  const at = path.lastIndexOf('/');
  return at <= 0 ? [cutValue(path.replace(/^\//, '')), ''] : [cutValue(path.slice(1, at)), cutValue(path.slice(at + 1))];
}

// --- what travels in metadata -----------------------------------------------

// The current labels as the client sends them, or null if none.
function forwardedPayload() {
  const out = {};
  const problem = addLimited(out, currentLabels(), MAX_LABELS - RESERVED.size, NOT_FORWARDED, false);
  if (problem !== null) warn(problem);
  return Object.keys(out).length === 0 ? null : Buffer.from(JSON.stringify(out));
}

// The labels a call's client forwarded (a plain object), or undefined.
function forwardedOf(metadata) {
  if (metadata === null || typeof metadata !== 'object' || typeof metadata.get !== 'function') return undefined;
  const values = metadata.get(METADATA_KEY);
  if (!Array.isArray(values) || values.length === 0) return undefined;
  return parseCarried(Buffer.from(values[0]).toString('utf8'), METADATA_KEY, warn);
}

// --- server -----------------------------------------------------------------

// labelsOf(call, base): the call's labels over `base` (its service and
// method, frozen): the client's forwarded labels in the room the others
// leave, options.labels(call) winning.
function callLabels({ ownFn, forwarded }) {
  return function labelsOf(call, base) {
    const carried = forwarded ? forwardedOf(call.metadata) : undefined;
    return mergeCarried(base, ownFn, call, carried, NOT_FORWARDED, warn, 'options.labels(call)');
  };
}

// `emit` that runs listeners in `scope` (an event nobody listens to does
// not enter it).
function emitIn(scope, emit) {
  return function emitInScope(event, ...args) {
    if (this.listenerCount(event) === 0) return emit.call(this, event, ...args);
    return scope.runInAsyncScope(emit, this, event, ...args);
  };
}

// `state`: { labelsOf, forward } of the options that apply (instrument()
// may replace them once, below).
function patchServer(Server, state) {
  const proto = Server.prototype;
  const addService = proto.addService;
  proto.addService = function addService_(service, implementation) {
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
  };
  const register = proto.register;
  proto.register = function register_(name, handler, serialize, deserialize, type) {
    if (typeof name !== 'string' || typeof handler !== 'function') return register.apply(this, arguments);
    const [service, method] = splitPath(name);
    const unimplemented = this[kUnimplemented] !== undefined && this[kUnimplemented].has(name);
    const base = Object.freeze({ [SERVICE]: service, [METHOD]: unimplemented ? UNIMPLEMENTED : method });
    function labelledHandler(call, callback) {
      let labels;
      try {
        labels = state.labelsOf(call, base);
      } catch (err) {
        warn(err && err.message);
        labels = base;
      }
      return withLabels(labels, () => {
        if (call !== null && typeof call === 'object' && typeof call.emit === 'function') {
          call.emit = emitIn(new AsyncResource('customlabels.grpc'), call.emit);
        }
        return handler.call(this, call, callback);
      });
    }
    return register.call(this, name, labelledHandler, serialize, deserialize, type);
  };
}

// --- client -----------------------------------------------------------------

// The call's metadata with the forwarded labels added: a copy, since an app
// may send one Metadata object with many calls (and one the app set itself
// wins).
function withPayload(metadata, payload) {
  if (payload === null || metadata === null || typeof metadata !== 'object' || typeof metadata.get !== 'function' || typeof metadata.clone !== 'function') return metadata;
  if (metadata.get(METADATA_KEY).length !== 0) return metadata;
  const copy = metadata.clone();
  copy.set(METADATA_KEY, payload);
  return copy;
}

// A listener whose callbacks run in `scope`.
function listenerIn(scope, listener) {
  if (listener === null || typeof listener !== 'object') return listener;
  const bound = Object.create(listener);
  for (const name of ['onReceiveMetadata', 'onReceiveMessage', 'onReceiveStatus']) {
    const fn = listener[name];
    if (typeof fn === 'function') bound[name] = (...args) => scope.runInAsyncScope(fn, listener, ...args);
  }
  return bound;
}

function patchChannel(Channel, state) {
  const proto = Channel.prototype;
  const createCall = proto.createCall;
  proto.createCall = function createCall_(...args) {
    const call = createCall.apply(this, args);
    if (call === null || typeof call !== 'object' || typeof call.start !== 'function') return call;
    // Made where the client method was called: the caller's context.
    const scope = new AsyncResource('customlabels.grpc.client');
    const payload = state.forward ? forwardedPayload() : null;
    const start = call.start;
    call.start = function start_(metadata, listener) {
      return start.call(this, withPayload(metadata, payload), listenerIn(scope, listener));
    };
    // A message's write callback (call.write(msg, cb), 'drain') is called
    // from the HTTP/2 stream too.
    const send = call.sendMessageWithContext;
    if (typeof send === 'function') {
      call.sendMessageWithContext = function sendMessageWithContext_(context, message) {
        if (context !== null && typeof context === 'object' && typeof context.callback === 'function') {
          context = { ...context, callback: scope.bind(context.callback) };
        }
        return send.call(this, context, message);
      };
    }
    return call;
  };
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

// Patches a @grpc/grpc-js module's servers and clients, once per copy. The
// first call's options apply, except over customlabels/register's: an app
// that calls instrument() itself takes over with its own options (false:
// patched already, these options unused).
function instrument(grpc, options) {
  return patch(grpc, options, false);
}

// customlabels/register's call: the defaults, with the process's labels
// (CUSTOMLABELS_LABELS) as the server's own, until the app's own call.
function instrumentForRegister(grpc, processLabels = {}) {
  return patch(grpc, Object.keys(processLabels).length > 0 ? { labels: () => processLabels } : undefined, true);
}

function patch(grpc, options, byRegister) {
  if (grpc === null || typeof grpc !== 'object' || typeof grpc.Server !== 'function' || typeof grpc.Server.prototype.register !== 'function') {
    throw errors.invalidOption('', "the @grpc/grpc-js module (require('@grpc/grpc-js'))", grpc);
  }
  const settings = readOptions(options);
  const proto = grpc.Server.prototype;
  const applied = hasOwn.call(proto, kPatched) ? proto[kPatched] : null;
  if (applied !== null) {
    if (byRegister || !applied.byRegister) return false;
    Object.assign(applied, { labelsOf: callLabels(settings), forward: settings.forward, byRegister: false });
    return true;
  }
  const state = { labelsOf: callLabels(settings), forward: settings.forward, byRegister };
  Object.defineProperty(proto, kPatched, { value: state });
  patchServer(grpc.Server, state);
  if (typeof grpc.Channel === 'function' && typeof grpc.Channel.prototype.createCall === 'function') patchChannel(grpc.Channel, state);
  return true;
}

module.exports = { instrument, instrumentForRegister, forwardingInterceptor, METADATA_KEY };
