'use strict';

// customlabels/graphql's own cost per operation, in process (no HTTP, no
// load generator: what the integrations suite's noise hides). Operations
// run through Apollo Server 5's executeOperation and GraphQL Yoga 5's fetch
// in modes alternating in blocks:
//   none         no instrumentation
//   labels-mw    withLabels({ 'graphql.operation': operationName,
//                'graphql.type': 'query' }, () => run(op)) by hand
//   integration  apolloPlugin() / yogaPlugin()
//
//   node bench/graphql-ops.js [--rounds 20] [--block 2000]
//
// Prints one JSON line per server: µs per operation (medians over rounds)
// and the median of the per-round ratios integration ÷ labels-mw.

const { withLabels } = require('..');
const graphql = require('../lib/integrations/graphql');

const cli = require('./cli').cli(__filename);
const opt = (name, fallback) => Number(cli.opt(name, fallback));
const rounds = opt('--rounds', 20);
const block = opt('--block', 2000);

const { typeDefs, resolversFor, operation, request } = require('./graphql-request');

const resolvers = resolversFor(() => {});
const byHand = (fn) => withLabels({ 'graphql.operation': operation.operationName, 'graphql.type': 'query' }, fn);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function apollo() {
  const { ApolloServer } = require('@apollo/server');
  const make = async (plugins) => {
    const server = new ApolloServer({ typeDefs, resolvers, plugins });
    await server.start();
    return (i) => server.executeOperation({ ...operation, variables: { id: String(i) } });
  };
  const plain = await make([]);
  const labelled = await make([graphql.apolloPlugin()]);
  return { none: plain, 'labels-mw': (i) => byHand(() => plain(i)), integration: labelled };
}

async function yoga() {
  const { createYoga, createSchema } = require('graphql-yoga');
  const make = (plugins) => {
    const y = createYoga({ schema: createSchema({ typeDefs, resolvers }), plugins, logging: false });
    return async () => (await y.fetch(`http://localhost${request.path}`, { method: request.method, headers: request.headers, body: request.body })).text();
  };
  // The hand-written plugin opens its scope where yogaPlugin() does.
  const handPlugin = { onParams: ({ setParamsHandler, paramsHandler }) => setParamsHandler((p) => byHand(() => paramsHandler(p))) };
  return { none: make([]), 'labels-mw': make([handPlugin]), integration: make([graphql.yogaPlugin()]) };
}

async function measure(name, modes) {
  const names = Object.keys(modes);
  const samples = Object.fromEntries(names.map((m) => [m, []]));
  for (let r = -2; r < rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const m = names[(k + r + 3) % names.length];
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < block; i++) await modes[m](i);
      if (r >= 0) samples[m].push(Number(process.hrtime.bigint() - t0) / block / 1000);
    }
  }
  const ratios = samples.integration.map((x, i) => x / samples['labels-mw'][i]);
  const usPerOp = Object.fromEntries(names.map((m) => [m, Number(median(samples[m]).toFixed(2))]));
  console.log(JSON.stringify({ node: process.version, server: name, usPerOp, integrationToLabelsMw: Number(median(ratios).toFixed(3)) }));
}

(async () => {
  await measure('Apollo Server 5', await apollo());
  await measure('GraphQL Yoga 5', await yoga());
})();
