'use strict';

// Socket.IO servers in the table of integrations (lib/integrations/index.js):
// register only (socketio/servers.js says what it labels, and how).
// Public hooks alone: Server#of (every namespace, the main one made by the
// Server's constructor included), Namespace#use, Socket#use, and Socket#emit
// of the sockets' class (found from the first socket).

const { defineIntegration } = require('../kit/integration');

const servers = () => require('./servers');

module.exports = defineIntegration({
  name: 'socketio',
  title: 'Socket.IO',
  subpath: null,
  labels: ['event', 'namespace'],
  packages: { 'socket.io': '4.x' },
  internals: [],
  reach: [{ kind: 'module', package: 'socket.io', patch: (io, context) => servers().patchSocketIo(io, context), unpatch: () => servers().unpatchSocketIo() }],
});
