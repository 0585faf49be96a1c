'use strict';

// Socket.IO under customlabels/register, end to end
// (test/js/fixtures/socketio-app.js): real socket.io-client sockets, one per
// tenant and transport, each to the main namespace and to /admin; at every
// checkpoint the reader, from outside, sees exactly that socket's labels:
// its event and namespace, its handshake's tenant, the process labels, and
// never the method or route of the HTTP request a long-polling packet came
// in.

const path = require('node:path');
const { runCheckpoints, expectEveryCheckpointSeen, REGISTERED } = require('../harness');
const { countOf } = require('../requests');

const fixture = path.join(__dirname, '..', '..', 'fixtures', 'socketio-app.js');
// [tenant, transports]: long-polling first (the client's default), then
// WebSocket alone.
const CLIENTS = [
  ['acme', undefined],
  ['globex', ['websocket']],
  ['initech', undefined],
  ['umbrella', ['websocket']],
];

// One client's sockets: the main namespace (an event with an
// acknowledgement, and one the server emits with an acknowledgement it
// waits for), then /admin (an event with an acknowledgement).
async function client(port, n, [tenant, transports]) {
  const { io } = require('socket.io-client');
  const options = { forceNew: true, reconnection: false, extraHeaders: { 'x-tenant': tenant }, auth: { n }, ...(transports === undefined ? {} : { transports }) };
  const main = io(`http://127.0.0.1:${port}`, options);
  main.on('ask', (m, ack) => ack(m * 2));
  const done = new Promise((resolve) => main.once('done', resolve));
  const worked = await main.timeout(60000).emitWithAck('work', n);
  const answered = await done;
  const admin = io(`http://127.0.0.1:${port}/admin`, options);
  const stats = await admin.timeout(60000).emitWithAck('stats');
  main.close();
  admin.close();
  return { worked, answered, stats: typeof stats.sockets };
}

async function run({ env = {} } = {}) {
  let clients;
  const result = await runCheckpoints(fixture, {
    args: [String(CLIENTS.length)],
    env: { ...REGISTERED, CUSTOMLABELS_LABELS: 'service=chat', ...env },
    onEvent: (msg) => {
      if (msg.event === 'listening') clients = Promise.all(CLIENTS.map((c, n) => client(msg.port, n, c)));
    },
  });
  return { run: result, clients: await clients };
}

// (`unsupported`: test/versions' release outside the range, whose one
// warning it checks itself.)
function served({ run: r, clients }, entry, { unsupported = false } = {}) {
  if (!unsupported) expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(clients).toEqual(CLIENTS.map((_, n) => ({ worked: n + 1, answered: 2 * n, stats: 'number' })));
}

function checkpoints({ run: r }) {
  const n = CLIENTS.length;
  expect(countOf(r, 'namespace middleware')).toBe(n);
  expect(countOf(r, 'connection handler')).toBe(n);
  // The work event, and the ask acknowledgement's packet.
  expect(countOf(r, 'socket middleware')).toBe(n);
  expect(countOf(r, 'work listener')).toBe(n);
  expect(countOf(r, 'ask acknowledged')).toBe(n);
  expect(countOf(r, 'admin middleware')).toBe(n);
  expect(countOf(r, 'admin connection handler')).toBe(n);
  expect(countOf(r, 'stats listener')).toBe(n);
  expectEveryCheckpointSeen(r.checkpoints);
}

module.exports = { run, served, checkpoints, CLIENTS };
