'use strict';

// Socket.IO in test/versions: the server's releases under register (there
// is no line to add by hand), each read from outside with the repository's
// socket.io-client 4 (test/versions/suites.js says what a suite holds).

const e2e = require('../../js/integrations/e2e/socketio');

module.exports = {
  published: ['event', 'namespace', 'tenant', 'service'],
  wirings: ['register'],
  run: (entry, env) => e2e.run({ env }),
  served: (result, entry, context) => e2e.served(result, entry, context),
  checkpoints: (result) => e2e.checkpoints(result),
  builders: { 'socket.io': (v) => ({ set: { packages: { 'socket.io': v } }, wirings: ['register'] }) },
};
