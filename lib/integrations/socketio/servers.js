'use strict';

// Socket.IO servers (socket.io 4), labelled by customlabels/register with
// no line in the app (socketio/integration.js):
//
//   event      the incoming event's name ('chat message'), cut to what
//              readers keep; `connection` while a socket connects
//   namespace  its namespace's name ('/' for the main one, '/admin')
//   plus the connection's labels: register's process labels and its header
//   labels, read from the socket's handshake request; the same whichever
//   transport carries the socket (an HTTP request's method and route are
//   not a socket's).
//
// What runs under them:
// - while a socket connects: the namespace's middleware (io.use(),
//   nsp.use(): register's comes first, added when the namespace is made,
//   through Server#of, which the Server's constructor calls for '/') and
//   its `connection` handler, event `connection`;
// - each incoming event, from the first socket middleware on (socket.use():
//   register's is added first, as the socket connects): the app's socket
//   middleware, the event's listeners (Socket.IO calls them on the next
//   tick, inside the scope), everything they cause, and the acknowledgement
//   they send;
// - each acknowledgement callback of an event the server emits
//   (socket.emit(event, ...args, ack), emitWithAck()): under that event,
//   in the context the emit ran in.
// onAny() listeners run before any middleware, in Socket.IO's own context:
// unlabelled, as are `disconnect` listeners. A label that cannot be
// published is one warning (CUSTOMLABELS_REQUEST_LABELS), and the socket's
// work goes on unlabelled.

const { AsyncResource } = require('node:async_hooks');
const { Patcher } = require('../kit/patcher');
const { memoOn } = require('../kit/cache');
const { cutValue } = require('../kit/limits');
const { capValue } = require('../kit/cardinality');
const { configuredLabels, withLabelsOr, rejectedWarning } = require('../kit/request-labels');

const EVENT = 'event';
const NAMESPACE = 'namespace';
const CONNECTION = 'connection';
// A socket's work is the socket's, whichever transport carried its packet:
// the labels of an HTTP request it arrived in (long-polling's POSTs, under
// the HTTP integration) are taken off.
const NOT_A_REQUEST = Object.freeze({ method: null, route: null });

const patcher = new Patcher('socketio');
const kReached = Symbol('customlabels.socketio.namespace'); // on a namespace register added its middleware to
const kConnection = Symbol('customlabels.socketio.connection'); // on a socket: its labels, frozen
const kEvents = Symbol('customlabels.socketio.events'); // on a socket: event -> its labels
// Register's middleware labels while this is the patch's generation
// (unpatch() ends it: middleware stays on the namespaces and sockets, which
// end with them).
let generation = 0;

// The labels of an event of `socket` (one frozen object per event name and
// socket: event names come from clients, so each socket keeps a bounded
// number, kit/cache.js).
function eventLabels(socket, event) {
  const connection = socket[kConnection];
  return memoOn(socket, kEvents, event, () => Object.freeze({ ...connection, [EVENT]: capValue(EVENT, cutValue(String(event))) }), 64);
}

// fn() under `labels`; unlabelled (one warning) where they cannot be
// published.
const runUnder = (labels, fn) =>
  withLabelsOr(labels, fn, (err) => {
    rejectedWarning(err);
    return fn();
  });

// Register's namespace middleware, of its configuration's labels
// (`labelsOf(handshake)`): the connection's labels, kept on the socket;
// the socket's own middleware first, which runs the rest of each event's
// handling under its labels; the rest of the connection under them.
function connectionMiddleware(labelsOf) {
  const mine = generation;
  const live = () => mine === generation;
  return function labelConnection(socket, next) {
    if (!live() || socket === null || typeof socket !== 'object') return next();
    let connection;
    try {
      connection = Object.freeze({ ...labelsOf(socket.handshake ?? {}), ...NOT_A_REQUEST, [NAMESPACE]: cutValue(String(socket.nsp && socket.nsp.name)) });
    } catch (err) {
      rejectedWarning(err);
      return next();
    }
    Object.defineProperty(socket, kConnection, { value: connection, configurable: true });
    const Socket = Object.getPrototypeOf(socket);
    if (Socket !== null && !Patcher.isWrapped(Socket, 'emit')) labelAcknowledgements(Socket);
    socket.use((packet, nextInSocket) => (live() && Array.isArray(packet) ? runUnder(eventLabels(socket, packet[0]), nextInSocket) : nextInSocket()));
    return runUnder(eventLabels(socket, CONNECTION), next);
  };
}

// The namespace `nsp` gets register's middleware, first (once).
function reach(nsp, labelConnection) {
  if (nsp === null || typeof nsp !== 'object' || typeof nsp.use !== 'function' || nsp[kReached] === true) return;
  Object.defineProperty(nsp, kReached, { value: true });
  nsp.use(labelConnection);
}

// An acknowledgement callback of an event the server emits runs under that
// event, in the context the emit ran in: Socket#emit of the class of the
// sockets (found from the first socket: socket.io 4.0 exports no Socket).
function labelAcknowledgements(Socket) {
  patcher.wrap(Socket, 'emit', (emit) =>
    function emit_(event, ...args) {
      const last = args.length - 1;
      if (last < 0 || typeof args[last] !== 'function' || this[kConnection] === undefined) return emit.apply(this, arguments);
      const ack = args[last];
      const labels = eventLabels(this, event);
      args[last] = AsyncResource.bind(function (...response) {
        return runUnder(labels, () => ack.apply(this, response));
      });
      return emit.call(this, event, ...args);
    },
  );
}

function patchSocketIo(io, { config }) {
  const Server = io !== null && (typeof io === 'object' || typeof io === 'function') ? io.Server : undefined;
  if (typeof Server !== 'function' || typeof Server.prototype.of !== 'function') return;
  const labelConnection = connectionMiddleware(configuredLabels(config));
  patcher.wrap(Server.prototype, 'of', (of) =>
    function of_(name, fn) {
      const nsp = of.apply(this, arguments);
      reach(nsp, labelConnection);
      return nsp;
    },
  );
}

function unpatchSocketIo() {
  generation += 1;
  patcher.unwrapAll();
}

module.exports = { patchSocketIo, unpatchSocketIo, EVENT, NAMESPACE };
