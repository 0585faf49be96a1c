'use strict';

// What test/versions runs of each integration's end-to-end test
// (test/js/integrations/e2e/), against one entry of the matrix: how its
// fixture starts (the variant the entry names, with the entry's packages in
// place of the repository's), and which wirings it runs.

const semver = require('semver');

const e2e = (name) => require(`../js/integrations/e2e/${name}`);

// Each: { run(entry, env, context) -> result, served(result, entry,
// context), checkpoints(result, entry, context), wirings? (default: by hand
// and register), warnings?(result) (the fixture's own record of them, where
// it keeps stderr for what should not be there), published: the labels the
// integration publishes (by hand, from its options; with register, from its
// configuration), which must never be wrong where it is left unpatched }
// (labels the app sets itself are the app's: a framework left unpatched may
// run them in another request's context, as it does without customlabels);
// context: { wiring, unsupported } and, per suite, the servers it needs
// (redis, broker); report? (packages of the set's install beside its own
// whose versions the docs show: Express's router); outcome?(entry, { wiring,
// hooks }) (what its tests showed, in the docs' words, where it is not
// 'labelled exactly' or the unsupported one).
const HTTP = ['method', 'route', 'tenant'];
const SUITES = {
  express: { ...e2e('express'), published: HTTP, report: ['router'], run: (entry, env) => e2e('express').run({ module: 'express', env }) },
  fastify: { ...e2e('fastify'), published: HTTP, run: (entry, env) => e2e('fastify').run({ module: 'fastify', env }) },
  koa: { ...e2e('koa'), published: HTTP, run: (entry, env) => e2e('koa').run({ koa: 'koa', router: entry.variant, env }) },
  hapi: { ...e2e('hapi'), published: HTTP, run: (entry, env) => e2e('hapi').run({ env }) },
  hono: { ...e2e('hono'), published: HTTP, run: (entry, env) => e2e('hono').run({ server: '@hono/node-server', env }) },
  graphql: {
    published: ['graphql.operation', 'graphql.type', ...HTTP],
    // Apollo 4 on Express 4 (its own express4 middleware), Apollo 5 on
    // Express 5, Yoga on node:http by hand and mounted in Express with
    // register, envelop on node:http by hand (graphql-js no server takes).
    variantOf: (entry, wiring) =>
      entry.variant === 'apollo4' ? 'apollo4-express4' : entry.variant === 'apollo5' ? 'apollo5-express5' : entry.variant === 'envelop' ? 'envelop' : wiring === 'by hand' ? 'yoga-http' : 'yoga-express',
    // An operation's description parses from graphql-js 16.11.
    descriptions: (entry) => semver.gte(entry.set.packages.graphql, '16.11.0'),
    run(entry, env, { wiring }) {
      return e2e('graphql').run({ variant: SUITES.graphql.variantOf(entry, wiring), env: { ...env, CUSTOMLABELS_FIXTURE_UNALIASED: '1' }, descriptions: SUITES.graphql.descriptions(entry) });
    },
    served: (result, entry, { wiring }) => e2e('graphql').served(result, SUITES.graphql.variantOf(entry, wiring), { descriptions: SUITES.graphql.descriptions(entry) }),
    checkpoints: (result, entry, { wiring }) => e2e('graphql').checkpoints(result, SUITES.graphql.variantOf(entry, wiring)),
  },
  bullmq: {
    published: ['queue', 'job', 'tenant', 'route'],
    run: (entry, env, { redis, wiring }) => e2e('bullmq').run({ port: redis.port, mode: 'inline', registered: wiring !== 'by hand', env }),
    served: (result) => e2e('bullmq').served(result),
    checkpoints: (result) => e2e('bullmq').checkpoints(result),
    warnings: (result) => e2e('bullmq').warnings(result),
  },
  grpc: { ...e2e('grpc'), published: ['rpc.service', 'rpc.method'], run: (entry, env) => e2e('grpc').run({ env }) },
  amqplib: {
    published: ['queue', 'exchange', 'routing_key'],
    run: (entry, env, { broker }) => e2e('amqplib').run({ url: broker.url, env }),
    served: (result, entry, { unsupported }) => e2e('amqplib').served(result, { unsupported }),
    checkpoints: (result) => e2e('amqplib').checkpoints(result),
    warnings: (result) => e2e('amqplib').warnings(result),
  },
  next: {
    published: ['method', 'route', 'tenant'],
    run: (entry, env) => e2e('next').run({ dir: env.CUSTOMLABELS_VERSIONS_DIR, env }),
    served: (result) => e2e('next').served(result),
    checkpoints: (result) => e2e('next').checkpoints(result),
    wirings: ['register'],
  },
  otel: {
    ...e2e('otel'),
    // (`method` too, from span attributes; under register every request
    // also carries it from the HTTP integration, the same value, so an
    // unpatched OpenTelemetry is judged by the ids it must not show.)
    published: ['trace_id', 'span_id', 'local_root_span_id', 'op'],
    run: (entry, env) => e2e('otel').run({ env }),
  },
  worker: { ...e2e('worker'), run: (entry, env) => e2e('worker').run({ env }), served() {}, wirings: ['by hand'] },
  // The profile is what is read: each sample a checkpoint (what it shows,
  // where a left-alone profiler must show none of the integrations'
  // labels); hooks off, the app starts @datadog/pprof with useCPED.
  pprof: {
    published: HTTP,
    run: (entry, env, { wiring }) => e2e('pprof').runVersion({ profiler: entry.variant, unsupported: entry.expect === 'unsupported', env: { ...env, CUSTOMLABELS_FIXTURE_WIRING: wiring === 'register' ? 'register' : 'hand' } }),
    served: (result) => e2e('pprof').servedVersion(result),
    checkpoints: (result, entry) => e2e('pprof').checkpointsVersion(result, entry.variant),
    warnings: (result) => result.result.warnings,
    outcome: (entry, { hooks }) =>
      entry.expect === 'unsupported' ? 'one warning, unlabelled, no label wrong' : entry.variant === 'pyroscope' && hooks === 'off' ? 'no labels: one context per thread needs hooks (strategy() says so)' : 'labelled exactly, read from the profile',
  },
};

module.exports = { SUITES };
