'use strict';

// lib/integrations/kit/request-labels.js: the labels of a request under
// register's header labels (CUSTOMLABELS_HEADERS) are one frozen object per
// method, route and header values, so withLabels finds their set by
// identity; values that differ in any way never share one (a client chooses
// them).

const { requestLabels } = require('../../../lib/integrations/kit/request-labels');

const registered = { labels: { service: 'shop' }, headers: [['x-tenant', 'tenant', null], ['x-plan', 'plan', /^[a-z]+$/]] };
const req = (headers) => ({ headers });

test('the same method, route and header values give the same frozen labels; a different value, an absent or empty header, another route do not', () => {
  const build = requestLabels({}, registered);
  const a = build('GET', '/u/:id', req({ 'x-tenant': 'acme', 'x-plan': 'gold' }));
  expect(a).toEqual({ service: 'shop', method: 'GET', route: '/u/:id', tenant: 'acme', plan: 'gold' });
  expect(Object.isFrozen(a)).toBe(true);
  expect(build('GET', '/u/:id', req({ 'x-tenant': 'acme', 'x-plan': 'gold' }))).toBe(a);

  const others = [
    build('POST', '/u/:id', req({ 'x-tenant': 'acme', 'x-plan': 'gold' })),
    build('GET', '/v', req({ 'x-tenant': 'acme', 'x-plan': 'gold' })),
    build('GET', '/u/:id', req({ 'x-tenant': 'acme' })),
    build('GET', '/u/:id', req({ 'x-tenant': '', 'x-plan': 'gold' })),
    build('GET', '/u/:id', req({ 'x-plan': 'gold' })),
    // (values with the separators a key joined from the parts would use)
    build('GET', '/u/:id', req({ 'x-tenant': 'acme|4:gold' })),
    build('GET', '/u/:id', req({ 'x-tenant': 'acme|', 'x-plan': 'gold' })),
    // fails the allow-pattern: (other)
    build('GET', '/u/:id', req({ 'x-tenant': 'acme', 'x-plan': 'Gold!' })),
  ];
  expect(others.map((o) => o === a)).toEqual(Array(others.length).fill(false));
  expect(others.slice(2).map(({ tenant, plan }) => [tenant, plan])).toEqual([
    ['acme', undefined],
    ['', 'gold'],
    [undefined, 'gold'],
    ['acme|4:gold', undefined],
    ['acme|', 'gold'],
    ['acme', '(other)'],
  ]);
  expect(new Set(others).size).toBe(others.length);
});

test('with an app\'s own labels function each request gets its own object, built from the request', () => {
  let calls = 0;
  const build = requestLabels({ labels: (r) => ({ mine: String(++calls) + r.headers['x-tenant'] }) }, registered);
  const one = build('GET', '/u', req({ 'x-tenant': 'acme' }));
  const two = build('GET', '/u', req({ 'x-tenant': 'acme' }));
  expect([one.mine, two.mine, one.tenant]).toEqual(['1acme', '2acme', 'acme']);
  expect(one).not.toBe(two);
});

test('the cache of labels by parts (kit/cache.js BoundedTrie) tells undefined from \'\', holds at most its bound, and after starting over makes a key in use again', () => {
  const { BoundedTrie } = require('../../../lib/integrations/kit/cache');
  const trie = new BoundedTrie(3);
  let made = 0;
  const get = (...parts) => trie.get(parts, parts.length, () => ({ parts, n: ++made }));
  const a = get('GET', '/a', undefined);
  expect(get('GET', '/a', undefined)).toBe(a);
  expect(get('GET', '/a', '')).not.toBe(a);
  expect(get('GET', undefined, '')).not.toBe(a);
  expect(trie.size).toBe(3);
  // Full: a new key is made and not kept; the trie starts over.
  const d = get('POST', '/a', undefined);
  expect(d.n).toBe(4);
  expect(trie.size).toBe(0);
  expect(get('GET', '/a', undefined).n).toBe(5);
  expect(trie.size).toBe(1);
  expect(() => new BoundedTrie(0)).toThrow(RangeError);
});
