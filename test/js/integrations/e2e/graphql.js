'use strict';

// customlabels/graphql end to end (test/js/fixtures/graphql-app.js): at
// every checkpoint (context, parsing, validation, sync and async resolvers,
// DataLoader batches, resolvers that throw, the error hooks, subscription
// events) the reader sees exactly the operation's name and type on top of
// the HTTP layer's labels.

const crypto = require('node:crypto');
const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen } = require('../harness');
const { tenants, statusCounts, countOf } = require('../requests');
const { chunkedJson } = require('../http-client');

const fixture = path.join(__dirname, '..', '..', 'fixtures', 'graphql-app.js');

const USER = 'query GetUser($id: ID!) { user(id: $id) { id name friends { name } } }';
const SLOW = '{ slow }';
const FAILING = 'query Failing { fail }';
// Two operations: operationName picks the mutation. With a description on
// it where graphql-js parses one (16.11+).
const twoOperations = (description) => `
  query Other { slow }
  ${description ? '"A description, and # not a comment { ( in a string"' : '# a comment { ( here'}
  mutation Rename($id: ID!) { rename(id: $id, name: "x") { id name } }
`;
const BROKEN = 'query Broken { user(id: "1") { name }';
const PERSISTED = 'query Persisted { user(id: "7") { name } }';
const TICKS = 'subscription Ticks { ticks(n: 2) }';

// One request: `expect` ([operation, type]) travels in headers for the
// fixture's checkpoints.
function gql(id, tenant, [operation, type], { body, get, headers = {} }) {
  const common = { 'x-id': id, 'x-tenant': tenant, 'x-expect-operation': operation, 'x-expect-type': type, ...headers };
  if (get !== undefined) {
    return { path: `/graphql?${new URLSearchParams(get)}`, headers: { ...common, 'apollo-require-preflight': 'true' } };
  }
  return { method: 'POST', path: '/graphql', headers: { ...common, 'content-type': 'application/json' }, chunks: chunkedJson(body, 2) };
}

// The load per variant: for each tenant and round, a named query (phases,
// sync resolver, DataLoader), an anonymous GET (async resolver), a failing
// resolver, a mutation picked out of two operations, a document that does
// not parse; on Apollo a persisted query sent as its hash and a batch; on
// Yoga a subscription over SSE. `descriptions`: whether graphql-js parses a
// description on an operation.
function requestsFor(variant, { rounds = 2, descriptions = true } = {}) {
  const apollo = variant.startsWith('apollo');
  const TWO = twoOperations(descriptions);
  const out = [];
  for (let round = 0; round < rounds; round++) {
    tenants.forEach((tenant, t) => {
      const id = (kind) => `${kind}${round}-${t}`;
      const comment = (kind) => `# id=${id(kind)}\n`;
      out.push(gql(id('u'), tenant, ['GetUser', 'query'], { body: { query: comment('u') + USER, variables: { id: String(t) } } }));
      out.push(gql(id('a'), tenant, ['(anonymous)', 'query'], { get: { query: SLOW } }));
      out.push(gql(id('f'), tenant, ['Failing', 'query'], { body: { query: FAILING } }));
      out.push(gql(id('m'), tenant, ['Rename', 'mutation'], { body: { query: TWO, operationName: 'Rename', variables: { id: '5' } } }));
      out.push(gql(id('x'), tenant, ['(unknown)', '(unknown)'], { body: { query: BROKEN } }));
      if (apollo) {
        const sha256Hash = crypto.createHash('sha256').update(PERSISTED).digest('hex');
        out.push(gql(id('p'), tenant, ['Persisted', 'query'], { body: { extensions: { persistedQuery: { version: 1, sha256Hash } } } }));
        out.push(gql(id('b'), tenant, ['(batch)', 'query'], { body: [{ query: USER, variables: { id: '1' } }, { query: SLOW }] }));
      } else if (variant !== 'envelop') {
        out.push(gql(id('s'), tenant, ['Ticks', 'subscription'], { body: { query: comment('s') + TICKS }, headers: { accept: 'text/event-stream' } }));
      }
    });
  }
  return out;
}

const n = tenants.length * 2; // requests of each kind

// `variant`: apollo5-express5, apollo4-express4, apollo5-standalone,
// yoga-http, yoga-express or envelop.
const run = ({ variant, env = {}, descriptions = true }) => serveUnderLoad(fixture, [variant], requestsFor(variant, { descriptions }), 6, env);

function served({ responses }, variant, { descriptions = true } = {}) {
  const apollo = variant.startsWith('apollo');
  const requests = requestsFor(variant, { descriptions });
  const bodies = (kind) => responses.filter((r, i) => requests[i].headers['x-id'][0] === kind).map((r) => r.body);
  for (const body of bodies('u')) expect(JSON.parse(body).data.user.friends).toEqual([{ name: 'friend 10' }, { name: 'friend 11' }, { name: 'friend 12' }]);
  for (const body of bodies('a')) expect(JSON.parse(body)).toEqual({ data: { slow: 'slow' } });
  for (const body of bodies('f')) expect(JSON.parse(body).errors[0].message).toMatch(/^boom f/);
  for (const body of bodies('m')) expect(JSON.parse(body)).toEqual({ data: { rename: { id: '5', name: 'x' } } });
  for (const body of bodies('x')) expect(JSON.parse(body).errors[0].message).toMatch(/Syntax Error/);
  if (apollo) {
    for (const body of bodies('p')) expect(JSON.parse(body)).toEqual({ data: { user: { name: 'user 7' } } });
    for (const body of bodies('b')) expect(JSON.parse(body).map((r) => Object.keys(r.data))).toEqual([['user'], ['slow']]);
    expect(statusCounts(responses)).toEqual({ 200: 6 * n, 400: n });
  } else if (variant === 'envelop') {
    expect(statusCounts(responses)).toEqual({ 200: 5 * n });
  } else {
    for (const body of bodies('s')) expect(body.match(/"ticks":\d/g)).toEqual(['"ticks":0', '"ticks":1']);
    // Yoga answers a document that does not parse with 200 to an
    // application/json client.
    expect(statusCounts(responses)).toEqual({ 200: 6 * n });
  }
}

function checkpoints({ run }, variant) {
  const apollo = variant.startsWith('apollo');
  const envelop = variant === 'envelop';
  // Phases of the named query (and, on Yoga, the subscription).
  const phased = apollo || envelop ? n : 2 * n;
  expect(countOf(run, 'context')).toBe(phased);
  expect(countOf(run, 'parsing')).toBe(phased);
  expect(countOf(run, 'validation rule')).toBe(phased);
  // Resolvers: the named query, the persisted one and the batch's.
  expect(countOf(run, 'sync resolver')).toBe(apollo ? 3 * n : n);
  expect(countOf(run, 'dataloader batch')).toBe(apollo ? 2 * n : n);
  expect(countOf(run, 'async resolver after an await')).toBe(apollo ? 2 * n : n);
  expect(countOf(run, 'async resolver after a timer')).toBe(apollo ? 2 * n : n);
  expect(countOf(run, 'mutation resolver')).toBe(n);
  expect(countOf(run, 'resolver that throws')).toBe(n);
  if (apollo) {
    expect(countOf(run, 'formatError')).toBe(n);
    // The failing resolver and the document that does not parse.
    expect(countOf(run, 'didEncounterErrors')).toBe(2 * n);
  } else if (!envelop) {
    expect(countOf(run, 'maskError')).toBe(n);
    expect(countOf(run, 'subscribe')).toBe(n);
    expect(countOf(run, 'subscription event')).toBe(2 * n);
  }
  expectEveryCheckpointSeen(run.checkpoints);
}

module.exports = { run, served, checkpoints };
