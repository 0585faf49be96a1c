'use strict';

// Socket.IO 4 under customlabels/register (lib/integrations/socketio), with
// real socket.io-client sockets over long-polling and WebSocket, read from
// outside (e2e/socketio.js): at every checkpoint the reader sees exactly
// the socket's event, namespace, handshake tenant and the process labels.
// The hook-free CI lanes run this file with CUSTOMLABELS_HOOKS=0, where the
// reader finds them by walking V8's continuation data.

const { runNode } = require('../helpers');
const e2e = require('./e2e/socketio');

describe('socket.io under register, read from outside', () => {
  let result;
  beforeAll(async () => {
    result = await e2e.run();
  }, 180000);

  test('every socket connected, its events and acknowledgements were answered, and the server closed cleanly', () => {
    e2e.served(result);
  });

  test('at every checkpoint the reader sees exactly that socket\'s labels on the server thread', () => {
    e2e.checkpoints(result);
  });
});

// What runs outside a socket's work stays unlabelled, and a client's event
// names are bounded per socket; an app loading socket.io without register
// gets nothing of ours.
test('socket.io: an event name is cut to what readers keep, onAny and disconnect listeners are unlabelled, and without register nothing is patched', async () => {
  const source = (registered) => `
    const http = require('node:http');
    const { Server } = require('socket.io');
    const { io: connect } = require('socket.io-client');
    const { currentLabels } = require('.');
    const server = http.createServer();
    const io = new Server(server);
    const seen = {};
    io.on('connection', (socket) => {
      socket.onAny((event) => { seen.onAny = currentLabels(); });
      socket.on('x'.repeat(100), (ack) => { seen.long = currentLabels(); ack(); });
      socket.on('disconnect', () => {
        seen.disconnect = currentLabels();
        io.close();
        console.log(JSON.stringify({ seen, ofName: Server.prototype.of.name, ofLength: Server.prototype.of.length }));
      });
    });
    server.listen(0, '127.0.0.1', async () => {
      const c = connect('http://127.0.0.1:' + server.address().port, { transports: ['websocket'] });
      await c.emitWithAck('x'.repeat(100));
      c.close();
    });`;
  const [on, off] = await Promise.all([runNode(source(true), { args: ['--require', './lib/register.js'] }), runNode(source(false))]);
  for (const r of [on, off]) expect(r.stderr).toBe('');
  const cut = 'x'.repeat(require('../../../lib/integrations/kit/limits').PARCA.MAX_VALUE_BYTES);
  expect(JSON.parse(on.stdout)).toEqual({ seen: { onAny: {}, long: { namespace: '/', event: cut }, disconnect: {} }, ofName: 'of', ofLength: 2 });
  expect(JSON.parse(off.stdout)).toEqual({ seen: { onAny: {}, long: {}, disconnect: {} }, ofName: 'of', ofLength: 2 });
});
