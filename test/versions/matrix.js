'use strict';

// The versions test/versions runs, per integration. Two parts:
//
// - Coverage, made from the table of integrations (its ranges) and the
//   releases recorded in test/versions/releases.json, so it covers every
//   declared range by construction: per release line a range admits (a
//   major; for 0.x, a minor) its lowest and its newest release, and for a
//   range register checks at run time (`packages`) the newest release below
//   it and the lowest above it, where npm has one (those must run with one
//   warning and no label wrong). Ranges the tests run but nothing checks
//   (`testedWith`) get no outside releases: there is no behaviour to show.
// - Chosen by hand (HAND): every release where a private name a patch
//   relies on (or the behaviour the integration works around) changed, and
//   one double per integration: a release with one private name renamed, as
//   a release that moved it would ship. Each says why it is here; the
//   evidence (file and line per release) was read from the packages.
//
// How a release of a package runs is its builder (BUILDERS): the packages
// beside it, the variant of the integration's end-to-end suite
// (test/versions/suites.js), the Node.js it needs (22: releases that read
// res._headers, which 24 removed; the others under 24), the wirings (by
// hand, register). Every set is installed from its lockfile
// (test/versions/locks/, written by `npm run versions:refresh`).
//
// An entry: { key, integration, subject (the package it is about), set: {
// packages: { name: version }, overrides?, double?, legacyPeerDeps? }, why,
// expect: 'labels' (the default) | 'unsupported', variant?, node?,
// wirings?, generated? }. `labels` entries run by hand and with register,
// hooks on and off; `unsupported` ones by hand and with register, hooks on.
// A release the coverage asks for that cannot run at all is EXEMPT, with
// the reason, which docs/versions.md shows.

const semver = require('semver');
const TABLE = require('../../lib/integrations');
const { releasesOf, coverage } = require('./releases');

const lt = (a, b) => semver.lt(a, b);
const gte = (a, b) => semver.gte(a, b);
const major = (v) => semver.major(v);

// --- how a release of each package runs ----------------------------------------
// builder(version) -> { set: { packages, overrides?, legacyPeerDeps? },
// variant?, node?, wirings? }

const koaSet = (koa, router, version) => ({ set: { packages: { koa, [router]: version } }, variant: router });
const apolloSet = (v) =>
  major(v) === 4
    ? { set: { packages: { '@apollo/server': v, express: '4.22.3', graphql: '16.15.0' } }, variant: 'apollo4' }
    : { set: { packages: { '@apollo/server': v, express: '5.3.0', '@as-integrations/express5': '1.1.2', graphql: '16.15.0' } }, variant: 'apollo5' };
// Yoga, with the graphql-js a new app gets beside it (17 from Yoga 5.22,
// which first accepts it).
const yogaSet = (v, graphql = gte(v, '5.22.0') ? '17.1.0' : '16.15.0') => ({ set: { packages: { 'graphql-yoga': v, express: '5.3.0', graphql } }, variant: 'yoga' });
// graphql-js below 15.7 (Yoga answers a document that does not parse with a
// 500 there, and takes none below 15.2): envelop on node:http, by hand.
const envelopSet = (graphql) => ({ set: { packages: { graphql, '@envelop/core': '5.6.1' } }, variant: 'envelop', wirings: ['by hand'] });
// Next.js: the app (test/js/fixtures/next-app) built with each version, run
// under register (there is no line to add by hand), with the OpenTelemetry
// SDK its instrumentation.js uses.
const nextOtel = { '@opentelemetry/api': '1.9.1', '@opentelemetry/context-async-hooks': '2.12.1', '@opentelemetry/sdk-trace-base': '2.12.1' };
const nextSet = (v, react = lt(v, '15.1.0') ? '18.3.1' : '19.3.1') => ({ set: { packages: { next: v, react, 'react-dom': react, ...nextOtel } }, wirings: ['register'] });
// OpenTelemetry: one SDK line with the API it pairs with (the fixture,
// test/js/fixtures/otel-app.js, traces HTTP with its instrumentation and
// builds its tracer provider the way that line does:
// test/js/fixtures/tracer-provider.js).
const sdk12 = (api, sdk, instrumentation, extra = {}) => ({
  set: {
    packages: {
      '@opentelemetry/api': api,
      '@opentelemetry/context-async-hooks': sdk,
      '@opentelemetry/sdk-trace-base': sdk,
      '@opentelemetry/sdk-trace-node': sdk,
      '@opentelemetry/instrumentation': instrumentation,
      '@opentelemetry/instrumentation-http': instrumentation,
    },
    ...(extra.legacyPeerDeps ? { legacyPeerDeps: true } : {}),
  },
  ...(extra.wirings ? { wirings: extra.wirings } : {}),
});
// SDK 3: one @opentelemetry/sdk-trace in place of sdk-trace-base and -node,
// its core, API 1.10.
const sdk3 = (api, sdk, instrumentation, http = instrumentation) => ({
  set: {
    packages: {
      '@opentelemetry/api': api,
      '@opentelemetry/context-async-hooks': sdk,
      '@opentelemetry/sdk-trace': sdk,
      '@opentelemetry/core': sdk,
      '@opentelemetry/instrumentation': instrumentation,
      '@opentelemetry/instrumentation-http': http,
    },
  },
});
const SDK3_INSTRUMENTATION = { '3.0.0': ['0.300.0', '0.300.0'], '3.1.0': ['0.301.1', '0.301.0'], '3.1.1': ['0.301.1', '0.301.0'] };
const sdk3Of = (api, sdk) => sdk3(api, sdk, ...(SDK3_INSTRUMENTATION[sdk] ?? SDK3_INSTRUMENTATION['3.1.1']));
const otelApi = (v) =>
  gte(v, '1.10.0') ? sdk3Of(v, '3.1.1') : gte(v, '1.9.0') ? sdk12(v, '2.12.1', '0.223.0') : gte(v, '1.3.0') ? sdk12(v, '1.8.0', '0.34.0') : sdk12(v, '1.7.0', '0.33.0', { wirings: ['register'] });
// context-async-hooks 1.x with the oldest API the range takes (1.0.1-1.7
// declare an older API as their peer: installed past it, as they run).
const SDK2_INSTRUMENTATION = { '2.0.0': '0.200.0' };
const otelManager = (v) => (major(v) >= 3 ? sdk3Of('1.10.0', v) : major(v) === 2 ? sdk12('1.9.1', v, SDK2_INSTRUMENTATION[v] ?? '0.223.0') : sdk12('1.3.0', v, '0.34.0', { legacyPeerDeps: true }));

const BUILDERS = {
  express: {
    // express.json before 4.16 is a throwing getter: body-parser of its own.
    express: (v) => ({ set: { packages: { express: v, ...(lt(v, '4.16.0') ? { 'body-parser': '1.20.3' } : {}) } }, ...(lt(v, '4.15.5') ? { node: 22 } : {}) }),
  },
  fastify: { fastify: (v) => ({ set: { packages: { fastify: v } } }) },
  koa: {
    koa: (v) => koaSet(v, '@koa/router', major(v) === 2 ? '12.0.2' : '15.7.0'),
    '@koa/router': (v) => koaSet(gte(v, '13.0.0') ? '3.3.0' : '2.16.4', '@koa/router', v),
    'koa-router': (v) => koaSet(gte(v, '13.0.0') ? '3.3.0' : '2.16.4', 'koa-router', v),
  },
  hapi: { '@hapi/hapi': (v) => ({ set: { packages: { '@hapi/hapi': v } } }) },
  hono: { hono: (v) => ({ set: { packages: { hono: v, '@hono/node-server': '1.19.19' } } }) },
  graphql: {
    '@apollo/server': apolloSet,
    'graphql-yoga': (v) => yogaSet(v),
    graphql: (v) => (gte(v, '15.7.0') ? yogaSet('5.24.1', v) : envelopSet(v)),
  },
  // BullMQ 6 takes ioredis as an optional peer a new app installs itself
  // (6.0.0-6.0.9 throw without it; 6.0.10+ load it lazily).
  bullmq: { bullmq: (v) => ({ set: { packages: { bullmq: v, ...(major(v) >= 6 ? { ioredis: gte(v, '6.0.10') ? '6.0.0' : '5.11.1' } : {}) } }, ...(major(v) < 5 ? { wirings: ['register'] } : {}) }) },
  next: { next: (v) => nextSet(v) },
  otel: { '@opentelemetry/api': otelApi, '@opentelemetry/context-async-hooks': otelManager },
  grpc: { '@grpc/grpc-js': (v) => ({ set: { packages: { '@grpc/grpc-js': v, '@grpc/proto-loader': '0.8.1' } } }) },
  amqplib: { amqplib: (v) => ({ set: { packages: { amqplib: v } } }) },
  worker: { piscina: (v) => ({ set: { packages: { piscina: v } } }) },
  // In-process profiles: @datadog/pprof started by the app, or the copy
  // Pyroscope's SDK depends on (0.4.13+ pin 5.14.4).
  pprof: {
    '@datadog/pprof': (v) => ({ set: { packages: { '@datadog/pprof': v } }, variant: 'pprof' }),
    '@pyroscope/nodejs': (v) => ({ set: { packages: { '@pyroscope/nodejs': v } }, variant: 'pyroscope' }),
  },
};

// An entry for `version` of `pkg` in `integration`, run as its builder has
// it, with `extra` over that: `packages` and `overrides` merge into the
// set, a whole `set` (an SDK line of its own) replaces it.
function entry(integration, pkg, version, why, extra = {}) {
  const { overrides, double, packages, set: own, ...rest } = extra;
  const built = { ...BUILDERS[integration][pkg](version), ...(own ? { set: own } : {}) };
  const set = {
    ...built.set,
    packages: { ...built.set.packages, ...(packages ?? {}) },
    ...(overrides || built.set.overrides ? { overrides: { ...(built.set.overrides ?? {}), ...(overrides ?? {}) } } : {}),
    ...(double ? { double } : {}),
  };
  return { integration, subject: pkg, ...built, ...rest, set, why };
}
const unsupported = { expect: 'unsupported' };

// --- chosen by hand ------------------------------------------------------------------

const HAND = [
  // --- express ---------------------------------------------------------------------
  entry('express', 'express', '4.15.5', 'newest without express.json (body-parser of its own)'),
  entry('express', 'express', '4.16.0', 'express.json first; its body-parser reads a chunked body in the socket context (raw-body 2.3)'),
  entry('express', 'express', '4.17.3', 'newest whose body-parser loses the request context across a chunked body (raw-body 2.4.3)'),
  entry('express', 'express', '4.18.0', 'body-parser 1.20 binds the body read to its context (raw-body 2.5.1); setImmediate after 100 sync layers'),
  entry('express', 'express', '5.0.0', 'oldest 5, with the oldest router 2 (2.0.0: params on the layer, no rawPath)', { overrides: { router: '2.0.0' } }),
  entry('express', 'express', '5.3.0', 'newest 5 (router 2.3: layer.rawPath, match() returns params)'),
  entry('express', 'express', '5.3.0', 'newest 5 with router 2.2.0, the newest router without layer.rawPath', { overrides: { router: '2.2.0' } }),
  entry('express', 'express', '4.22.3', 'double: Layer#handle_request renamed', {
    ...unsupported,
    double: { package: 'express', renames: 'Layer#handle_request', edits: ['index.js', 'layer.js', 'route.js'].map((f) => [`express/lib/router/${f}`, 'handle_request', 'handle_request_moved']) },
  }),
  // --- fastify -----------------------------------------------------------------------
  entry('fastify', 'fastify', '4.10.0', 'request.routeOptions first'),
  entry('fastify', 'fastify', '4.23.0', 'reading routerPath warns (FSTDEP017)'),
  // --- koa ---------------------------------------------------------------------------
  entry('koa', 'koa', '2.0.0', 'oldest Koa 2 (callback() inline, no handleRequest), with the oldest @koa/router 12', { packages: { '@koa/router': '12.0.0' } }),
  entry('koa', '@koa/router', '13.0.1', '@koa/router 13.0.1: path-to-regexp 8'),
  entry('koa', '@koa/router', '15.1.0', '@koa/router 15.1: the class again; param middleware pushed when not inserted'),
  entry('koa', '@koa/router', '15.7.0', 'double: Router#register renamed', {
    ...unsupported,
    double: { package: '@koa/router', renames: 'Router#register', edits: [['@koa/router/dist/index.js', 'register', 'registerMoved']] },
  }),
  // --- hapi --------------------------------------------------------------------------
  entry('hapi', '@hapi/hapi', '21.4.10', 'double: Request#_lifecycle renamed', {
    ...unsupported,
    double: { package: '@hapi/hapi', renames: 'Request#_lifecycle', edits: [['@hapi/hapi/lib/request.js', '_lifecycle', '_lifecycleMoved']] },
  }),
  // --- hono --------------------------------------------------------------------------
  entry('hono', 'hono', '4.6.9', 'notFoundHandler and addRoute private'),
  entry('hono', 'hono', '4.8.0', 'routes carry basePath; hono/route helpers'),
  entry('hono', 'hono', '4.13.9', 'newest built with esbuild'),
  entry('hono', 'hono', '4.13.10', 'new bundler: router files required directly, CommonJS exports writable'),
  entry('hono', 'hono', '4.13.19', 'double: c.req.matchedRoutes renamed', {
    ...unsupported,
    double: { package: 'hono', renames: 'c.req.matchedRoutes', edits: [['hono/dist/cjs/request.js', 'matchedRoutes', 'matchedRoutesMoved']] },
  }),
  // --- graphql -----------------------------------------------------------------------
  entry('graphql', '@apollo/server', '4.0.0-rc.16', 'just outside (a 4.0.0 prerelease; npm has no release below 4)', unsupported),
  entry('graphql', '@apollo/server', '5.5.1', 'double: server.internals renamed', {
    ...unsupported,
    double: {
      package: '@apollo/server',
      renames: 'server.internals',
      edits: [
        ['@apollo/server/dist/cjs/ApolloServer.js', 'this.internals', 'this.internalsMoved'],
        ['@apollo/server/dist/cjs/ApolloServer.js', '    internals;\n', '    internalsMoved;\n'],
      ],
    },
  }),
  entry('graphql', 'graphql-yoga', '5.13.1', 'getResultForParams an instance field'),
  entry('graphql', 'graphql-yoga', '5.22.0', 'the first Yoga that takes graphql-js 17, with 17.0.0', { packages: { graphql: '17.0.0' } }),
  entry('graphql', 'graphql-yoga', '5.24.1', 'newest Yoga with graphql-js 16', { packages: { graphql: '16.15.0' } }),
  // --- bullmq ------------------------------------------------------------------------
  entry('bullmq', 'bullmq', '5.22.0', 'Queue#addBulk async, add/addBulk traced'),
  entry('bullmq', 'bullmq', '5.64.0', 'callProcessJob(job, token, signal)'),
  entry('bullmq', 'bullmq', '5.70.0', "ChildProcessor#init's wrapper takes the signal"),
  entry('bullmq', 'bullmq', '6.0.10', 'ioredis loaded lazily (6.0.0-6.0.9 throw at load without it)'),
  entry('bullmq', 'bullmq', '6.7.0', 'newest 6 with ioredis 6, as a new app installs it; sandboxes in worker threads stop with process.exit() in the thread'),
  entry('bullmq', 'bullmq', '6.7.0', 'newest 6 with ioredis 5 (ioredis 6 needs Node.js 20)', { packages: { ioredis: '5.11.1' } }),
  entry('bullmq', 'bullmq', '6.7.0', "double: Worker#callProcessJob renamed (register only: by hand, processor() wraps the app's own function)", {
    ...unsupported,
    wirings: ['register'],
    double: { package: 'bullmq', renames: 'Worker#callProcessJob', edits: [['bullmq/dist/cjs/classes/worker.js', 'callProcessJob', 'callProcessJobMoved']] },
  }),
  // --- grpc --------------------------------------------------------------------------
  entry('grpc', '@grpc/grpc-js', '1.14.7', 'double: Channel#createCall renamed', {
    ...unsupported,
    double: {
      package: '@grpc/grpc-js',
      renames: 'Channel#createCall',
      edits: [
        ['@grpc/grpc-js/build/src/channel.js', 'createCall(method, deadline, host, parentCall, propagateFlags) {', 'createCallMoved(method, deadline, host, parentCall, propagateFlags) {'],
        ['@grpc/grpc-js/build/src/client-interceptors.js', 'channel.createCall(', 'channel.createCallMoved('],
      ],
    },
  }),
  // --- amqplib -----------------------------------------------------------------------
  entry('amqplib', 'amqplib', '0.10.4', 'callback model as ES classes; ConfirmChannel#publish through super'),
  entry('amqplib', 'amqplib', '2.3.1', 'double: lib/channel_model.js moved', {
    ...unsupported,
    double: { package: 'amqplib', renames: 'lib/channel_model.js', move: ['amqplib/lib/channel_model.js', 'amqplib/lib/channel_model_moved.js'], edits: [['amqplib/channel_api.js', './lib/channel_model', './lib/channel_model_moved']] },
  }),
  // --- next (register only) ----------------------------------------------------------
  entry('next', 'next', '15.0.0-rc.1', 'just outside (a 15.0.0 prerelease)', unsupported),
  entry('next', 'next', '16.4.6', 'double: NextNodeServer#handleApiRequest renamed', {
    ...unsupported,
    double: { package: 'next', renames: 'NextNodeServer#handleApiRequest', edits: [['next/dist/server/next-server.js', 'handleApiRequest', 'handleApiRequestMoved']] },
  }),
  // --- otel --------------------------------------------------------------------------
  entry('otel', '@opentelemetry/api', '1.9.1', 'newest SDK 1 (setAttributes from the constructor since 1.19)', { ...sdk12('1.9.1', '1.30.1', '0.57.2') }),
  entry('otel', '@opentelemetry/api', '1.9.1', 'context-async-hooks 3 with API 1.9 and SDK 2 (its peer admits API 1.x)', {
    packages: { '@opentelemetry/context-async-hooks': '3.1.1' },
  }),
  // --- pprof -------------------------------------------------------------------------
  entry('pprof', '@datadog/pprof', '5.13.0', 'just outside: no runWithContext (the holders a frame gets are made through it)', unsupported),
  entry('pprof', '@datadog/pprof', '5.14.4', "the one Pyroscope's SDK 0.4.13+ pins"),
  entry('pprof', '@datadog/pprof', '5.20.0', 'double: time.runWithContext renamed', {
    ...unsupported,
    double: { package: '@datadog/pprof', renames: 'time.runWithContext', edits: [['@datadog/pprof/out/src/index.js', 'runWithContext', 'runWithContextMoved']] },
  }),
  // Pyroscope's SDK before 0.4.13 takes the newest @datadog/pprof 5.x its
  // caret range allows, with which it never stops its profiler (its stop()
  // uploads nothing, and the process throws at exit), customlabels or not:
  // 0.4.12, just outside, runs with the 5.14.4 0.4.13 pins.
  entry('pprof', '@pyroscope/nodejs', '0.4.12', 'just outside (its @datadog/pprof pinned to 5.14.4, as 0.4.13 does)', { ...unsupported, overrides: { '@datadog/pprof': '5.14.4' } }),
];

// What a generated entry's release changed, where it did: "<package>@<version>"
// -> the note its why gets.
const NOTES = {
  'express@4.5.1': 'no Layer#handle_request (route stacks of plain objects)',
  'express@4.6.0': 'Layer#handle_request and process_params(layer, called, req, res, done)',
  'fastify@3.29.5': 'it publishes fastify.initialization too',
  'fastify@4.0.0': 'fastify.initialization, request.routerPath (no routeOptions)',
  'fastify@5.0.0': 'routerPath gone; tracing channels',
  '@koa/router@11.0.2': 'no Router#register as 12 has it',
  '@koa/router@13.0.0': 'ES classes',
  '@koa/router@15.0.0': 'TypeScript build, require() gives { Router, default }',
  '@hapi/hapi@21.4.10': '_execute, _lifecycle, _reply unchanged since 21.0.0',
  'hono@4.0.2': 'app.notFound runs after the middleware returned',
  'hono@4.0.3': 'notFound in the middleware scope',
  'graphql-yoga@5.10.11': 'no setParamsHandler',
  'graphql-yoga@5.11.0': 'setParamsHandler',
  'graphql@14.7.0': 'no Lexer class',
  'bullmq@5.0.0': 'callProcessJob(job, token)',
  'bullmq@4.18.3': 'register only: by hand, processor() and add() use no BullMQ internals',
  '@grpc/grpc-js@1.10.0': 'Server a decorated class',
  '@grpc/grpc-js@1.14.7': 'register, addService, createCall unchanged since 1.9',
  'amqplib@1.2.0': 'an exports map (lib/ not exported)',
  'next@15.0.0': 'withWorkStore: storage.run(store, fn, store); React 18',
  'next@16.4.6': 'storage.run(workStore, fn, req, res, ...)',
  'next@14.2.35': 'register only, as every Next.js entry',
  '@opentelemetry/api@1.2.0': 'register only: by hand the app makes the manager itself',
  '@opentelemetry/api@1.3.0': 'with SDK 1.8 (addSpanProcessor, parentSpanId)',
  '@opentelemetry/api@1.10.0': 'SDK 3: @opentelemetry/sdk-trace, TracerProvider without register()',
  '@opentelemetry/context-async-hooks@1.0.0': 'the one 1.x whose peer admits API 1.3; once() listeners of a bound emitter fire on every emit until 1.6, without customlabels too',
  '@opentelemetry/context-async-hooks@2.0.0': 'SpanImpl, parentSpanContext; spanProcessors option',
  '@datadog/pprof@5.14.0': 'runWithContext, a holder keeps its context at index 0',
  '@pyroscope/nodejs@0.4.13': 'pins @datadog/pprof 5.14.4',
  '@pyroscope/nodejs@0.6.4': 'uploads the raw pprof',
};

// --- releases the coverage asks for that cannot run ----------------------------------
// "<package>@<version>" -> why.
const EXEMPT = {
  'koa@1.7.1': 'Koa 1 runs generator middleware: the fixture (async middleware) cannot run on it, with customlabels or without',
};

// --- coverage, generated ------------------------------------------------------------

// Whether `entries` run `pkg` at `version` (a double does not count).
const runs = (entries, pkg, version) => entries.some((e) => e.set.double === undefined && e.set.packages[pkg] === version);

// The entries covering every range of `integration` that `have` lacks.
function coverageOf(integration, have) {
  const out = [];
  const add = (pkg, version, why, expect) => {
    if (version === null || runs(have, pkg, version) || runs(out, pkg, version) || EXEMPT[`${pkg}@${version}`] !== undefined) return;
    const note = NOTES[`${pkg}@${version}`];
    out.push({ ...entry(integration.name, pkg, version, note === undefined ? why : `${why}: ${note}`, expect === 'unsupported' ? unsupported : {}), generated: true });
  };
  const ranges = [...Object.entries(integration.packages).map(([p, r]) => [p, r, true]), ...Object.entries(integration.testedWith).map(([p, r]) => [p, r, false])];
  for (const [pkg, range, checked] of ranges) {
    const { lines, below, above } = coverage(releasesOf(pkg), range);
    for (const { line, lowest, newest } of lines) {
      add(pkg, lowest, lowest === newest ? `the one release of ${line} in the range` : `oldest ${line}`);
      add(pkg, newest, `newest ${line}`);
    }
    if (checked) {
      add(pkg, below, 'just outside, below the range', 'unsupported');
      add(pkg, above, 'just outside, above the range', 'unsupported');
    }
  }
  return out;
}

const keyOf = (e) => `${e.integration}: ${labelOf(e)}`;

// How an entry is named in test titles and the docs: its subject and
// version, then the other packages of its set ('express 5.0.0 (router
// 2.0.0)').
function labelOf(e) {
  const { packages, overrides = {}, double } = e.set;
  const rest = Object.entries(packages).filter(([p]) => p !== e.subject);
  const extra = [...rest, ...Object.entries(overrides)].map(([p, v]) => `${p} ${v}`);
  return `${e.subject} ${packages[e.subject]}${extra.length ? ` (${extra.join(', ')})` : ''}${double ? ` with ${double.renames} moved` : ''}`;
}

function build() {
  const out = [];
  for (const integration of TABLE) {
    const hand = HAND.filter((e) => e.integration === integration.name);
    const entries = [...coverageOf(integration, hand), ...hand].sort((a, b) => {
      const pa = Object.keys({ ...integration.packages, ...integration.testedWith }).indexOf(a.subject);
      const pb = Object.keys({ ...integration.packages, ...integration.testedWith }).indexOf(b.subject);
      if (pa !== pb) return pa - pb;
      const c = semver.compare(a.set.packages[a.subject], b.set.packages[b.subject]);
      return c !== 0 ? c : (a.set.double ? 1 : 0) - (b.set.double ? 1 : 0);
    });
    out.push(...entries);
  }
  for (const e of out) {
    e.key = keyOf(e);
    if (e.expect === undefined) e.expect = 'labels';
  }
  return out;
}

const MATRIX = build();

module.exports = { MATRIX, HAND, EXEMPT, NOTES, BUILDERS, labelOf, coverageOf, runs };
