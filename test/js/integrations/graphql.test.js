'use strict';

// customlabels/graphql on Apollo Server 5 and 4 and GraphQL Yoga 5, read
// from outside: at every checkpoint (context, parsing, validation, sync and
// async resolvers, DataLoader batches, resolvers that throw, the error
// hooks, subscription events) the reader, from another process, sees
// exactly the operation's name and type on top of the HTTP layer's labels
// (e2e/graphql.js).

const { REGISTERED } = require('./harness');
const { testIf, runNode } = require('../helpers');
const e2e = require('./e2e/graphql');

const major = Number(process.versions.node.split('.')[0]);

// By hand, and two with customlabels/register (Express, Apollo or Yoga, and
// the tenant header from its configuration; no line of ours in the app).
const variants = [
  ['apollo5-express5', major >= 20, 'by hand'],
  ['apollo4-express4', true, 'by hand'],
  ['apollo5-standalone', major >= 20, 'by hand'],
  ['yoga-http', true, 'by hand'],
  ['yoga-express', true, 'by hand'],
  ['apollo5-express5', major >= 20, 'with customlabels/register'],
  ['yoga-express', true, 'with customlabels/register'],
];

describe.each(variants)('%s, wired %s', (variant, runs, wiring) => {
  let result;
  const testHere = testIf(runs, '@apollo/server 5 needs Node.js >= 20');

  beforeAll(async () => {
    if (runs) result = await e2e.run({ variant, env: wiring === 'by hand' ? {} : REGISTERED });
  }, 180000);

  testHere(`${variant}: every operation was answered as the server answers it unlabelled, and the server closed cleanly`, () => {
    expect(result.run.stderr).toBe('');
    expect(result.run.code).toBe(0);
    e2e.served(result, variant);
  });

  testHere(`${variant}: at every checkpoint the reader sees exactly the operation's labels over the request's, on the server thread`, () => {
    e2e.checkpoints(result, variant);
  });
});

test('graphql: operationOf picks the operation graphql-js would run, for documents graphql-js parses, and none for these it rejects', async () => {
  const { operationOf } = require('../../../lib/integrations/graphql');
  const { parse, getOperationAST } = require('graphql');
  const documents = [
    ['{ a }'],
    ['query { a }'],
    ['query Q { a }'],
    ['query Q($x: Int = 1) @dir(a: [1, 2]) { a(b: "}") }'],
    ['mutation M { a }'],
    ['subscription S { a }'],
    ['query A { a } query B { b }', 'B'],
    ['query A { a } query B { b }'],
    ['query A { a } query B { b }', 'C'],
    ['query A { a } mutation B { b }', 'A'],
    ['fragment F on T { a } query Q { ...F }'],
    ['fragment F on T { a } query Q { ...F }', 'F'],
    ['# query Hidden { a }\nquery Shown { a }'],
    ['"""description { ( """ query Q { a }'],
    ['"desc" mutation M { a(s: """ block \\""" { """) }'],
    ['query Q { a(s: "\\" } {") }'],
    ['\ufeff query Q { a }'],
    ['query Q @x { a }'],
    ['query Q { a }, query R { b }', 'R'],
    ['query Q { a', undefined],
    ['query Q { a } }'],
    ['type T { a: Int }'],
    ['extend type T { a: Int } query Q { a }'],
    ['query Q { a } ;'],
    ['query "Q" { a }'],
    ['query Q { a(s: "unterminated) }'],
    [''],
    ['   # only a comment'],
    [`query ${'N'.repeat(80)} { a }`],
    // Tokens graphql-js's Lexer reads and a scanner could get wrong.
    ['query Q { a(s: "\\u{1F600} \\u0041 }") }'],
    ['query Q { a(s: "bad \\x escape") }'],
    ['query Q { a(n: 1.5e10, m: -0) }'],
    ['query Q { a(n: 01) }'],
    ['query Q { a } \u0007'],
    ['query Q { a(s: """ ""\\"" """) } query R { b }', 'R'],
    ['query Q($v: [Int!]! = [1]) { a(v: $v) @skip(if: false) }'],
  ];
  for (const [text, operationName] of documents) {
    // What the server runs: nothing for a document that does not parse, or
    // that validation rejects for a definition that is not executable.
    let expected;
    try {
      const document = parse(text);
      const executable = document.definitions.every((d) => d.kind === 'OperationDefinition' || d.kind === 'FragmentDefinition');
      const op = executable ? getOperationAST(document, operationName) : null;
      expected = op === null ? null : { name: op.name ? op.name.value.slice(0, 53) : '(anonymous)', type: op.operation };
    } catch {
      expected = null;
    }
    expect({ text, operationName, op: operationOf(text, operationName) }).toEqual({ text, operationName, op: expected });
    // A parsed document gives the same answer as its text.
    if (expected !== null) expect(operationOf(parse(text), operationName)).toEqual(expected);
  }
});

test('graphql: without graphql-js an operation runs with no GraphQL labels, with one warning, and the request still runs', async () => {
  const out = await runNode(`
    const Module = require('node:module');
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (request === 'graphql') throw Object.assign(new Error('no graphql here'), { code: 'MODULE_NOT_FOUND' });
      return resolve.call(this, request, ...rest);
    };
    const graphql = require('./lib/integrations/graphql');
    const { withLabels, currentLabels } = require('.');
    const warnings = [];
    process.on('warning', (w) => warnings.push(w.code));
    const ops = [graphql.operationOf('query Q { a }'), graphql.operationOf('mutation M { a }')];
    // An envelop plugin runs the phase with no GraphQL labels and returns its result.
    const plugin = graphql.envelopPlugin();
    let parseFn = () => ({ parsed: currentLabels() });
    plugin.onParse({ context: {}, params: { source: 'query Q { a }' }, parseFn, setParseFn: (f) => { parseFn = f; } });
    const parsed = parseFn();
    setImmediate(() => console.log(JSON.stringify({ ops, parsed, warnings })));
  `);
  expect(JSON.parse(out.stdout)).toEqual({
    ops: [null, null],
    parsed: { parsed: {} },
    warnings: ['CUSTOMLABELS_GRAPHQL_LABELS'],
  });
  expect(out.stderr).toMatch(/graphql-js \(the 'graphql' package\) was not found: GraphQL operations run with no GraphQL labels/);
});

test('graphql: bad options are TypeErrors with stable codes; a labels function that throws or returns junk costs one warning and the operation still runs labelled', async () => {
  const out = await runNode(`
    const { createYoga, createSchema } = require('graphql-yoga');
    const graphql = require('./lib/integrations/graphql');
    const { currentLabels } = require('.');
    const codes = [];
    for (const bad of [() => graphql.yogaPlugin(1), () => graphql.apolloPlugin({ labels: 'x' }), () => graphql.yogaPlugin({ type: 'yes' }), () => graphql.instrument({}), () => graphql.operationOf(42)]) {
      try { bad(); } catch (e) { codes.push(e.name + ' ' + e.code); }
    }
    const warnings = [];
    process.on('warning', (w) => warnings.push(w.code));
    let calls = 0;
    const yoga = createYoga({
      schema: createSchema({ typeDefs: 'type Query { labels: String }', resolvers: { Query: { labels: () => JSON.stringify(currentLabels()) } } }),
      plugins: [graphql.yogaPlugin({ labels: () => { calls++; if (calls === 1) throw new Error('nope'); return calls === 2 ? 7 : { tenant: { not: 'a value' } }; } })],
      logging: false,
    });
    (async () => {
      const seen = [];
      for (let i = 0; i < 3; i++) {
        const res = await yoga.fetch('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'query L { labels }' }) });
        seen.push(JSON.parse((await res.json()).data.labels));
      }
      setImmediate(() => console.log(JSON.stringify({ codes, seen, warnings })));
    })();
  `);
  expect(out.stderr.match(/Warning: .*/g)).toEqual(['Warning: customlabels: options.labels failed (nope); operations run with the GraphQL labels alone']);
  const { codes, seen, warnings } = JSON.parse(out.stdout);
  expect(codes).toEqual(Array(5).fill('TypeError ERR_CUSTOMLABELS_INVALID_OPTION'));
  expect(seen).toEqual(Array(3).fill({ 'graphql.operation': 'L', 'graphql.type': 'query' }));
  expect(warnings).toEqual(['CUSTOMLABELS_GRAPHQL_LABELS']);
});

testIf(major >= 20, '@apollo/server 5 needs Node.js >= 20')('graphql: an ApolloServer without apolloPlugin() is left as it is; one with it labels executeOperation too; `operation: false` publishes the type alone', async () => {
  const out = await runNode(`
    const { ApolloServer } = require('@apollo/server');
    const graphql = require('./lib/integrations/graphql');
    const { currentLabels } = require('.');
    const typeDefs = 'type Query { labels: String }';
    const resolvers = { Query: { labels: () => JSON.stringify(currentLabels()) } };
    (async () => {
      const seen = {};
      for (const [name, plugins] of [['none', []], ['plugin', [graphql.apolloPlugin()]], ['typeOnly', [graphql.apolloPlugin({ operation: false })]]]) {
        const server = new ApolloServer({ typeDefs, resolvers, plugins });
        await server.start();
        const r = await server.executeOperation({ query: 'query Mine { labels }' });
        seen[name] = JSON.parse(r.body.singleResult.data.labels);
        await server.stop();
      }
      console.log(JSON.stringify(seen));
    })();
  `);
  expect(out.stderr).toBe('');
  expect(JSON.parse(out.stdout)).toEqual({
    none: {},
    plugin: { 'graphql.operation': 'Mine', 'graphql.type': 'query' },
    typeOnly: { 'graphql.type': 'query' },
  });
});

test('graphql: envelopPlugin() labels parsing, validation, execution (async resolvers, DataLoader) and subscription events of a plain envelop', async () => {
  const out = await runNode(`
    const { envelop, useEngine, useSchema } = require('@envelop/core');
    const { parse, validate, execute, subscribe, specifiedRules } = require('graphql');
    const { makeExecutableSchema } = require('@graphql-tools/schema');
    const DataLoader = require('dataloader');
    const graphql = require('./lib/integrations/graphql');
    const { currentLabels } = require('.');
    const seen = [];
    const note = (where) => seen.push([where, currentLabels()['graphql.operation'] ?? null, currentLabels()['graphql.type'] ?? null]);
    const schema = makeExecutableSchema({
      typeDefs: 'type Query { a: Int, b: [Int] } type Subscription { ticks: Int }',
      resolvers: {
        Query: {
          async a() { await new Promise((r) => setTimeout(r, 1)); note('async resolver'); return 1; },
          b(_, args, ctx) { return ctx.loader.loadMany([1, 2]); },
        },
        Subscription: {
          ticks: {
            async *subscribe() { yield { ticks: 1 }; yield { ticks: 2 }; },
            resolve(p) { note('event'); return p.ticks; },
          },
        },
      },
    });
    const rule = () => { note('validation'); return {}; };
    const getEnveloped = envelop({ plugins: [useEngine({ parse: (...a) => (note('parse'), parse(...a)), validate, execute, subscribe, specifiedRules: [...specifiedRules, rule] }), useSchema(schema), graphql.envelopPlugin()] });
    (async () => {
      for (const [query, operationName] of [['query Other { a } query Q { a b }', 'Q'], ['subscription S { ticks }', undefined]]) {
        const loader = new DataLoader(async (ids) => { note('dataloader'); return ids; });
        const { parse: p, validate: v, execute: e, subscribe: s, schema: sc, contextFactory } = getEnveloped({ params: { operationName } });
        note('outside');
        const document = p(query);
        const errors = v(sc, document);
        if (errors.length) throw errors[0];
        const contextValue = await contextFactory({ loader, params: { operationName } });
        const args = { schema: sc, document, contextValue, operationName };
        if (query.startsWith('subscription')) {
          for await (const r of await s(args)) note('consumer');
        } else {
          const r = await e(args);
          if (r.errors) throw r.errors[0];
        }
      }
      console.log(JSON.stringify(seen));
    })();
  `);
  expect(out.stderr).toBe('');
  expect(JSON.parse(out.stdout)).toEqual([
    ['outside', null, null],
    ['parse', 'Q', 'query'],
    ['validation', 'Q', 'query'],
    ['dataloader', 'Q', 'query'],
    ['async resolver', 'Q', 'query'],
    ['outside', null, null],
    ['parse', 'S', 'subscription'],
    ['validation', 'S', 'subscription'],
    ['event', 'S', 'subscription'],
    ['consumer', null, null],
    ['event', 'S', 'subscription'],
    ['consumer', null, null],
  ]);
});

testIf(major >= 20, '@apollo/server 5 needs Node.js >= 20')('graphql: an ESM app\'s ApolloServer is instrumented when it starts; a subclass is wrapped once; what Apollo rejects runs under (unknown)', async () => {
  const out = await runNode(
    `
    import { ApolloServer, HeaderMap } from '@apollo/server';
    import { apolloPlugin, instrument } from 'customlabels/graphql';
    import { currentLabels } from 'customlabels';
    let calls = 0;
    const seen = {};
    const typeDefs = 'type Query { labels: String }';
    const resolvers = { Query: { labels: () => JSON.stringify(currentLabels()) } };
    const plugin = () => apolloPlugin({ labels: () => { calls++; return undefined; } });
    // No instrument() call: the plugin finds the ESM build when it starts.
    const first = new ApolloServer({ typeDefs, resolvers, plugins: [apolloPlugin()] });
    await first.start();
    const r = await first.executeOperation({ query: 'query Esm { labels }' });
    seen.esm = JSON.parse(r.body.singleResult.data.labels);
    await first.stop();
    class Mine extends ApolloServer {}
    instrument(Mine);
    const server = new Mine({ typeDefs, resolvers, plugins: [plugin()] });
    await server.start();
    await server.executeOperation({ query: 'query Sub { labels }' });
    seen.calls = calls;
    // Seen by the context function, which Apollo runs before it rejects.
    const context = async () => { seen.contexts.push(currentLabels()['graphql.operation']); return {}; };
    seen.contexts = [];
    for (const search of ['query=query%20A%20%7B%20labels%20%7D&operationName=A', 'query=query%20A%20%7B%20labels%20%7D&operationName=A&operationName=A', 'query=%7Blabels%7D&extensions=%7Bnot-json']) {
      await server.executeHTTPGraphQLRequest({ httpGraphQLRequest: { method: 'GET', headers: new HeaderMap([['apollo-require-preflight', '1']]), search, body: undefined }, context });
    }
    await server.stop();
    console.log(JSON.stringify(seen));
  `,
    { args: ['--input-type=module'] },
  );
  expect(out.stderr).toBe('');
  expect(JSON.parse(out.stdout)).toEqual({
    esm: { 'graphql.operation': 'Esm', 'graphql.type': 'query' },
    calls: 1,
    contexts: ['A', '(unknown)', '(unknown)'],
  });
});
