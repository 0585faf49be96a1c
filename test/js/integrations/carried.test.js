'use strict';

// How the labels of a gRPC call or an AMQP message are merged
// (lib/integrations/kit/carried.js mergeCarried): the integration's own, the
// consumer's options.labels (winning; one bad value costs only itself), and
// the sender's (lowest precedence, never a skipped key), within the Parca
// agent's 10 labels; problems are warnings, never errors.

const { mergeCarried } = require('../../../lib/integrations/kit/carried');

const base = Object.freeze({ queue: 'jobs' });
const skip = new Set(['queue', 'trace_id']);

function merge(ownFn, carried) {
  const warnings = [];
  const labels = mergeCarried(base, ownFn, { id: 1 }, carried, skip, (w) => warnings.push(w), 'options.labels(msg)');
  return { labels, warnings };
}

test('with nothing to add, the base itself (frozen, so its set is built once)', () => {
  expect(merge(null, undefined).labels).toBe(base);
});

test("the consumer's labels win over the sender's; the sender's never replace a skipped key", () => {
  const { labels, warnings } = merge(() => ({ tenant: 'mine', pool: 'p' }), { tenant: 'theirs', region: 'eu', queue: 'spoofed', trace_id: 'f'.repeat(32) });
  expect(labels).toEqual({ queue: 'jobs', tenant: 'mine', pool: 'p', region: 'eu' });
  expect(warnings).toEqual([]);
});

test('one bad value of the consumer\'s labels is left out with a warning; the others apply', () => {
  const { labels, warnings } = merge(() => ({ tenant: 'acme', bad: { nested: true }, n: 7 }), undefined);
  expect(labels).toEqual({ queue: 'jobs', tenant: 'acme', n: '7' });
  expect(warnings).toEqual(['options.labels(msg): the value of "bad" is an instance of Object']);
});

test('a Map works; a function that throws or returns no labels is a warning, and the sender\'s still apply', () => {
  expect(merge(() => new Map([['tenant', 'acme']]), undefined).labels).toEqual({ queue: 'jobs', tenant: 'acme' });
  const thrown = merge(() => {
    throw new Error('boom');
  }, { region: 'eu' });
  expect(thrown).toEqual({ labels: { queue: 'jobs', region: 'eu' }, warnings: ['options.labels(msg): boom'] });
  expect(merge(() => 'tenant=acme', undefined).warnings).toEqual(['options.labels(msg): returned "tenant=acme", not labels']);
});

test("at most the Parca agent's 10 labels: the sender's fill only the room left", () => {
  const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, String(i)]));
  const { labels, warnings } = merge(() => ({ tenant: 'acme' }), many);
  expect(Object.keys(labels)).toHaveLength(10);
  expect(labels).toEqual(expect.objectContaining({ queue: 'jobs', tenant: 'acme', k0: '0' }));
  expect(warnings).toEqual(['more than 10 labels in all']);
});
