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
    // (values that would run together in a key without their lengths)
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
