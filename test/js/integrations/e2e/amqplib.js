'use strict';

// customlabels/amqplib end to end (test/js/fixtures/amqplib-app.js) with a
// real RabbitMQ broker: messages published from labelled scopes are
// consumed, with the promise and the callback API, under their queue plus
// the producer's labels, read from outside in the consumer callback, after
// an await and in the ack path.

const path = require('node:path');
const { runCheckpoints, expectEveryCheckpointSeen } = require('../harness');

const fixture = path.join(__dirname, '..', '..', 'fixtures', 'amqplib-app.js');

// `url`: the broker's.
async function run({ url, env = {} }) {
  const events = [];
  // Warnings are reported in the result event (the fixture's 'warning'
  // listener), so stderr holds only what should not be there.
  const r = await runCheckpoints(fixture, { args: [url], env: { NODE_NO_WARNINGS: '1', ...env }, onEvent: (e) => events.push(e) });
  return { run: r, events };
}

// Every message was acked once (the requeued one after its redelivery); the
// garbage label data was one warning of its own (none, or that one for the
// model still patched, where amqplib is left unpatched: `unsupported`).
function served({ events }, { unsupported = false } = {}) {
  const result = events.find((e) => e.event === 'result');
  expect(result.redelivered).toEqual(['p0']);
  const codes = result.warnings.map((w) => w.code).filter((c) => c !== 'CUSTOMLABELS_UNSUPPORTED_FRAMEWORK');
  if (unsupported) expect(codes.filter((c) => c !== 'CUSTOMLABELS_MESSAGE_LABELS')).toEqual([]);
  else expect(codes).toEqual(['CUSTOMLABELS_MESSAGE_LABELS']);
}

// The warnings the fixture saw ({ code, message }).
const warnings = ({ events }) => events.find((e) => e.event === 'result').warnings;

function checkpoints({ run: r }) {
  const counts = {};
  for (const cp of r.checkpoints) {
    const kind = cp.name.replace(/ [a-z0-9-]+$/, '');
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  // 8 messages, one delivered twice (its first delivery has no ack path).
  expect(counts).toEqual({ 'consumer callback': 9, 'after an await': 9, 'ack path': 8 });
  for (const cp of r.checkpoints) expect(cp.expect.trace_id).toBeUndefined();
  expectEveryCheckpointSeen(r.checkpoints);
}

module.exports = { run, served, checkpoints, warnings };
