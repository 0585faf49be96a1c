'use strict';

// customlabels/grpc end to end (test/js/fixtures/grpc-app.js): every call
// of each kind runs, from its handler to its last write and in its stream
// events, under rpc.service and rpc.method, and the client's callbacks and
// stream events under their caller's labels, several calls at once on one
// connection.

const path = require('node:path');
const { runCheckpoints, expectEveryCheckpointSeen } = require('../harness');

const fixture = path.join(__dirname, '..', '..', 'fixtures', 'grpc-app.js');
const CALLS = 18;

const KINDS = {
  'unary handler after awaits': 3,
  'server stream between writes': 6,
  'client stream data handler': 6,
  'client stream end handler': 3,
  'bidi data handler': 3,
  'bidi after an await in the data handler': 3,
  'generated-code handler': 3,
  'client unary callback': 3,
  'client stream data event': 6,
  'client write callback': 6,
  'client bidi data event': 3,
  'client callback of an unimplemented method': 3,
};

async function run({ env = {} } = {}) {
  const events = [];
  const r = await runCheckpoints(fixture, { args: [String(CALLS)], env, onEvent: (e) => events.push(e) });
  return { run: r, events };
}

// Every call completed, the unimplemented one as UNIMPLEMENTED.
function served({ events }) {
  expect(events.filter((e) => e.event === 'unimplemented').map((e) => e.code)).toEqual([12, 12, 12]);
}

function checkpoints({ run: r }) {
  const counts = {};
  for (const cp of r.checkpoints) {
    const kind = cp.name.replace(/ [a-z0-9-]+$/, '');
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  expect(counts).toEqual(KINDS);
  expectEveryCheckpointSeen(r.checkpoints);
}

module.exports = { run, served, checkpoints };
