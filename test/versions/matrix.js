'use strict';

// The versions test/versions runs, per integration: at least the oldest and
// the newest release of every major each declared range admits, every
// release where a private name a patch relies on (or the behaviour the
// integration works around) changed, one release just outside the range,
// and one double: a release with one private name renamed, as a release
// that moved it would ship. Each entry says why it is here; the evidence
// (file and line per release) was read from the packages themselves.
//
// An entry: { integration, set: { packages: { name: version }, overrides?,
// double? }, why, expect: 'labels' (the default) | 'unsupported', variant?
// (what the integration's e2e suite runs: test/versions/suites.js), node?
// (22: a release that needs res._headers, which Node.js 24 removed, runs
// under 22; the others under 24), wirings? (where only one wiring uses the
// private name a double moves) }.
// `labels` entries run by hand and with register, hooks on and off;
// `unsupported` ones by hand and with register, hooks on: one warning, every
// request served, no label wrong.

const express = (version, why, extra = {}) => ({
  integration: 'express',
  set: { packages: { express: version, ...(extra.packages ?? {}) }, overrides: extra.overrides },
  why,
  expect: extra.expect,
  node: extra.node,
});
const bodyParser = { 'body-parser': '1.20.3' }; // express.json before 4.16 (a throwing getter there)

const fastify = (version, why, expect) => ({ integration: 'fastify', set: { packages: { fastify: version } }, why, expect });
const koa = (koaVersion, router, routerVersion, why, expect) => ({
  integration: 'koa',
  set: { packages: { koa: koaVersion, [router]: routerVersion } },
  variant: router,
  why,
  expect,
});
const hapi = (version, why, expect) => ({ integration: 'hapi', set: { packages: { '@hapi/hapi': version } }, why, expect });
const hono = (version, why, expect) => ({ integration: 'hono', set: { packages: { hono: version, '@hono/node-server': '1.19.19' } }, why, expect });
const apollo = (version, why, expect) => {
  const major = Number(version.split('.')[0]);
  const packages = major === 4 ? { '@apollo/server': version, express: '4.22.3' } : { '@apollo/server': version, express: '5.3.0', '@as-integrations/express5': '1.1.2' };
  return { integration: 'graphql', set: { packages }, variant: `apollo${major}`, why, expect };
};
const yoga = (version, why, expect) => ({ integration: 'graphql', set: { packages: { 'graphql-yoga': version, express: '5.3.0' } }, variant: 'yoga', why, expect });
const bullmq = (version, why, expect) => ({ integration: 'bullmq', set: { packages: { bullmq: version } }, why, expect });
const grpc = (version, why, expect) => ({ integration: 'grpc', set: { packages: { '@grpc/grpc-js': version, '@grpc/proto-loader': '0.8.1' } }, why, expect });
const amqplib = (version, why, expect) => ({ integration: 'amqplib', set: { packages: { amqplib: version } }, why, expect });
// Next.js: the app (test/js/fixtures/next-app) built with each version, run
// under register (there is no line to add by hand).
const nextOtel = { '@opentelemetry/api': '1.9.1', '@opentelemetry/context-async-hooks': '2.12.1', '@opentelemetry/sdk-trace-base': '2.12.1' }; // its instrumentation.js
const next = (version, react, why, expect) => ({
  integration: 'next',
  set: { packages: { next: version, react, 'react-dom': react, ...nextOtel } },
  why,
  expect,
  wirings: ['register'],
});
// OpenTelemetry: one SDK line with the API it pairs with (the fixture,
// test/js/fixtures/otel-app.js, traces HTTP with its instrumentation).
const otel = (api, sdk, instrumentation, why, extra = {}) => ({
  integration: 'otel',
  set: {
    packages: {
      '@opentelemetry/api': api,
      '@opentelemetry/context-async-hooks': sdk,
      '@opentelemetry/sdk-trace-base': sdk,
      '@opentelemetry/sdk-trace-node': sdk,
      '@opentelemetry/instrumentation': instrumentation,
      '@opentelemetry/instrumentation-http': instrumentation,
    },
  },
  why,
  ...extra,
});
const piscina = (version, why) => ({ integration: 'worker', set: { packages: { piscina: version } }, why });
// In-process profiles: @datadog/pprof started by the app, or the copy
// Pyroscope's SDK depends on (0.3 and 0.4 up to 0.4.12 take the newest 5.x
// their caret range allows; 0.4.13+ pin 5.14.4).
const pprof = (version, why, expect) => ({ integration: 'pprof', set: { packages: { '@datadog/pprof': version } }, variant: 'pprof', why, expect });
const pyroscope = (version, why, expect) => ({ integration: 'pprof', set: { packages: { '@pyroscope/nodejs': version } }, variant: 'pyroscope', why, expect });

const MATRIX = [
  // --- express >=4.6.0 <6 -------------------------------------------------
  express('4.5.1', 'just outside: no Layer#handle_request (route stacks of plain objects)', { packages: bodyParser, expect: 'unsupported', node: 22 }),
  express('4.6.0', 'oldest supported: Layer#handle_request and process_params(layer, called, req, res, done)', { packages: bodyParser, node: 22 }),
  express('4.15.5', 'newest without express.json (body-parser of its own)', { packages: bodyParser }),
  express('4.16.0', 'express.json first; its body-parser reads a chunked body in the socket context (raw-body 2.3)'),
  express('4.17.3', 'newest whose body-parser loses the request context across a chunked body (raw-body 2.4.3)'),
  express('4.18.0', 'body-parser 1.20 binds the body read to its context (raw-body 2.5.1); setImmediate after 100 sync layers'),
  express('4.22.3', 'newest 4'),
  express('5.0.0', 'oldest 5, with the oldest router 2 (2.0.0: params on the layer, no rawPath)', { overrides: { router: '2.0.0' } }),
  express('5.3.0', 'newest 5 with router 2.2.0, the newest router without layer.rawPath', { overrides: { router: '2.2.0' } }),
  express('5.3.0', 'newest 5 (router 2.3: layer.rawPath, match() returns params)'),
  {
    integration: 'express',
    set: { packages: { express: '4.22.3' }, double: { package: 'express', renames: 'Layer#handle_request', edits: ['index.js', 'layer.js', 'route.js'].map((f) => [`express/lib/router/${f}`, 'handle_request', 'handle_request_moved']) } },
    why: 'double: Layer#handle_request renamed',
    expect: 'unsupported',
  },
  // --- fastify 4.x || 5.x ----------------------------------------------------
  fastify('3.29.5', 'just outside (it publishes fastify.initialization too)', 'unsupported'),
  fastify('4.0.0', 'oldest 4: fastify.initialization, request.routerPath (no routeOptions)'),
  fastify('4.10.0', 'request.routeOptions first'),
  fastify('4.23.0', 'reading routerPath warns (FSTDEP017)'),
  fastify('4.29.1', 'newest 4'),
  fastify('5.0.0', 'oldest 5: routerPath gone; tracing channels'),
  fastify('5.12.8', 'newest 5'),
  // --- koa 2.x || 3.x, @koa/router >=12.0.0 <16, koa-router >=12.0.0 <15 ---------
  koa('2.16.4', '@koa/router', '11.0.2', 'just outside (@koa/router 11)', 'unsupported'),
  koa('2.0.0', '@koa/router', '12.0.0', 'oldest Koa 2 (callback() inline, no handleRequest), oldest @koa/router 12'),
  koa('2.16.4', '@koa/router', '12.0.2', 'newest Koa 2, newest @koa/router 12'),
  koa('3.0.0', '@koa/router', '13.0.0', 'oldest Koa 3; @koa/router 13: ES classes'),
  koa('3.0.0', '@koa/router', '13.0.1', '@koa/router 13.0.1: path-to-regexp 8'),
  koa('3.3.0', '@koa/router', '13.1.1', 'newest @koa/router 13 (path-to-regexp 6 again)'),
  koa('3.3.0', '@koa/router', '14.0.0', '@koa/router 14, its only release'),
  koa('3.3.0', '@koa/router', '15.0.0', '@koa/router 15.0: TypeScript build, require() gives { Router, default }'),
  koa('3.3.0', '@koa/router', '15.1.0', '@koa/router 15.1: the class again; param middleware pushed when not inserted'),
  koa('3.3.0', '@koa/router', '15.7.0', 'newest Koa 3, newest @koa/router'),
  koa('2.16.4', 'koa-router', '12.0.0', 'oldest koa-router in range'),
  koa('3.3.0', 'koa-router', '14.0.0', 'newest koa-router'),
  {
    ...koa('3.3.0', '@koa/router', '15.7.0', 'double: Router#register renamed', 'unsupported'),
    set: { packages: { koa: '3.3.0', '@koa/router': '15.7.0' }, double: { package: '@koa/router', renames: 'Router#register', edits: [['@koa/router/dist/index.js', 'register', 'registerMoved']] } },
  },
  // --- @hapi/hapi >=21.0.0 <22 ----------------------------------------------------
  hapi('20.3.0', 'just outside', 'unsupported'),
  hapi('21.0.0', 'oldest 21'),
  hapi('21.4.10', 'newest 21 (_execute, _lifecycle, _reply unchanged since 21.0.0)'),
  {
    ...hapi('21.4.10', 'double: Request#_lifecycle renamed', 'unsupported'),
    set: { packages: { '@hapi/hapi': '21.4.10' }, double: { package: '@hapi/hapi', renames: 'Request#_lifecycle', edits: [['@hapi/hapi/lib/request.js', '_lifecycle', '_lifecycleMoved']] } },
  },
  // --- hono >=4.0.3 <5 --------------------------------------------------------------
  hono('4.0.2', 'just outside: app.notFound runs after the middleware returned', 'unsupported'),
  hono('4.0.3', 'oldest supported: notFound in the middleware scope'),
  hono('4.6.9', 'notFoundHandler and addRoute private'),
  hono('4.8.0', 'routes carry basePath; hono/route helpers'),
  hono('4.13.9', 'newest built with esbuild'),
  hono('4.13.10', 'new bundler: router files required directly, CommonJS exports writable'),
  hono('4.13.19', 'newest 4'),
  {
    ...hono('4.13.19', 'double: c.req.matchedRoutes renamed', 'unsupported'),
    set: { packages: { hono: '4.13.19', '@hono/node-server': '1.19.19' }, double: { package: 'hono', renames: 'c.req.matchedRoutes', edits: [['hono/dist/cjs/request.js', 'matchedRoutes', 'matchedRoutesMoved']] } },
  },
  // --- @apollo/server 4.x || 5.x, graphql-yoga >=5.11.0 <6 ----------------------------
  apollo('4.0.0-rc.16', 'just outside (a 4.0.0 prerelease)', 'unsupported'),
  apollo('4.0.0', 'oldest 4'),
  apollo('4.13.0', 'newest 4'),
  apollo('5.0.0', 'oldest 5'),
  apollo('5.5.1', 'newest 5'),
  {
    ...apollo('5.5.1', 'double: server.internals renamed', 'unsupported'),
    set: {
      packages: { '@apollo/server': '5.5.1', express: '5.3.0', '@as-integrations/express5': '1.1.2' },
      double: {
        package: '@apollo/server',
        renames: 'server.internals',
        edits: [
          ['@apollo/server/dist/cjs/ApolloServer.js', 'this.internals', 'this.internalsMoved'],
          ['@apollo/server/dist/cjs/ApolloServer.js', '    internals;\n', '    internalsMoved;\n'],
        ],
      },
    },
  },
  yoga('5.10.11', 'just outside: no setParamsHandler', 'unsupported'),
  yoga('5.11.0', 'oldest supported: setParamsHandler'),
  yoga('5.13.1', 'getResultForParams an instance field'),
  yoga('5.24.1', 'newest 5'),
  // --- bullmq 5.x --------------------------------------------------------------------
  { ...bullmq('4.18.3', 'just outside (register only: by hand, processor() and add() use no BullMQ internals)', 'unsupported'), wirings: ['register'] },
  bullmq('5.0.0', 'oldest 5: callProcessJob(job, token)'),
  bullmq('5.22.0', 'Queue#addBulk async, add/addBulk traced'),
  bullmq('5.64.0', 'callProcessJob(job, token, signal)'),
  bullmq('5.70.0', "ChildProcessor#init's wrapper takes the signal"),
  bullmq('5.81.5', 'newest 5'),
  {
    ...bullmq('5.81.5', 'double: Worker#callProcessJob renamed (register only: by hand, processor() wraps the app\'s own function)', 'unsupported'),
    wirings: ['register'],
    set: { packages: { bullmq: '5.81.5' }, double: { package: 'bullmq', renames: 'Worker#callProcessJob', edits: [['bullmq/dist/cjs/classes/worker.js', 'callProcessJob', 'callProcessJobMoved']] } },
  },
  // --- @grpc/grpc-js >=1.10.0 <2 -------------------------------------------------------
  grpc('1.9.16', 'just outside', 'unsupported'),
  grpc('1.10.0', 'oldest supported (Server a decorated class)'),
  grpc('1.14.7', 'newest 1 (register, addService, createCall unchanged since 1.9)'),
  {
    ...grpc('1.14.7', 'double: Channel#createCall renamed', 'unsupported'),
    set: {
      packages: { '@grpc/grpc-js': '1.14.7', '@grpc/proto-loader': '0.8.1' },
      double: {
        package: '@grpc/grpc-js',
        renames: 'Channel#createCall',
        edits: [
          ['@grpc/grpc-js/build/src/channel.js', 'createCall(method, deadline, host, parentCall, propagateFlags) {', 'createCallMoved(method, deadline, host, parentCall, propagateFlags) {'],
          ['@grpc/grpc-js/build/src/client-interceptors.js', 'channel.createCall(', 'channel.createCallMoved('],
        ],
      },
    },
  },
  // --- amqplib >=0.10.0 <3 -------------------------------------------------------------
  amqplib('0.9.1', 'just outside', 'unsupported'),
  amqplib('0.10.0', 'oldest supported'),
  amqplib('0.10.4', 'callback model as ES classes; ConfirmChannel#publish through super'),
  amqplib('0.10.9', 'newest 0.10'),
  amqplib('1.0.0', 'oldest 1'),
  amqplib('1.2.0', 'newest 1: an exports map (lib/ not exported)'),
  amqplib('2.0.0', 'oldest 2'),
  amqplib('2.3.1', 'newest 2'),
  {
    ...amqplib('2.3.1', 'double: lib/channel_model.js moved', 'unsupported'),
    set: { packages: { amqplib: '2.3.1' }, double: { package: 'amqplib', renames: 'lib/channel_model.js', move: ['amqplib/lib/channel_model.js', 'amqplib/lib/channel_model_moved.js'], edits: [['amqplib/channel_api.js', './lib/channel_model', './lib/channel_model_moved']] } },
  },
  // --- next 15.x || 16.x (register only) -------------------------------------------------
  next('15.0.0-rc.1', '18.3.1', 'just outside (a 15.0.0 prerelease)', 'unsupported'),
  next('15.0.0', '18.3.1', 'oldest 15 (withWorkStore: storage.run(store, fn, store); React 18)'),
  next('15.5.29', '19.3.1', 'newest 15'),
  next('16.0.0', '19.3.1', 'oldest 16'),
  next('16.4.6', '19.3.1', 'newest 16 (storage.run(workStore, fn, req, res, ...))'),
  {
    ...next('16.4.6', '19.3.1', 'double: NextNodeServer#handleApiRequest renamed', 'unsupported'),
    set: {
      packages: { next: '16.4.6', react: '19.3.1', 'react-dom': '19.3.1', ...nextOtel },
      double: { package: 'next', renames: 'NextNodeServer#handleApiRequest', edits: [['next/dist/server/next-server.js', 'handleApiRequest', 'handleApiRequestMoved']] },
    },
  },
  // --- @opentelemetry/api >=1.3.0 <1.10.0, context-async-hooks >=1.0.0 <3 ----------------
  otel('1.2.0', '1.7.0', '0.33.0', 'just outside (register only: by hand the app makes the manager itself)', { expect: 'unsupported', wirings: ['register'] }),
  otel('1.3.0', '1.8.0', '0.34.0', 'oldest API; SDK 1.8 (addSpanProcessor, parentSpanId)'),
  otel('1.9.1', '1.30.1', '0.57.2', 'newest SDK 1 (setAttributes from the constructor since 1.19)'),
  otel('1.9.1', '2.0.0', '0.200.0', 'oldest SDK 2 (SpanImpl, parentSpanContext; spanProcessors option)'),
  otel('1.9.1', '2.12.1', '0.223.0', 'newest SDK 2 (SpanImpl in @opentelemetry/sdk-trace since 2.9)'),
  // --- piscina >=4.0.0 <6 (customlabels/worker: by hand, nothing patched) --------------
  piscina('4.0.0', 'oldest 4'),
  piscina('4.9.4', 'newest 4'),
  piscina('5.0.0', 'oldest 5'),
  piscina('5.3.2', 'newest 5'),
  // --- @datadog/pprof >=5.14.0 <6, @pyroscope/nodejs >=0.4.13 <0.7 (no 0.5 was published) -------------------------
  pprof('5.13.0', 'just outside: no runWithContext (the holders a frame gets are made through it)', 'unsupported'),
  pprof('5.14.0', 'oldest: runWithContext, a holder keeps its context at index 0'),
  pprof('5.14.4', "the one Pyroscope's SDK 0.4.13+ pins"),
  pprof('5.20.0', 'newest'),
  {
    ...pprof('5.20.0', 'double: time.runWithContext renamed', 'unsupported'),
    set: { packages: { '@datadog/pprof': '5.20.0' }, double: { package: '@datadog/pprof', renames: 'time.runWithContext', edits: [['@datadog/pprof/out/src/index.js', 'runWithContext', 'runWithContextMoved']] } },
  },
  // Pyroscope's SDK before 0.4.13 takes the newest @datadog/pprof 5.x its
  // caret range allows, with which it never stops its profiler (its stop()
  // uploads nothing, and the process throws at exit), customlabels or not:
  // 0.4.12, just outside, runs with the 5.14.4 0.4.13 pins.
  {
    ...pyroscope('0.4.12', 'just outside (its @datadog/pprof pinned to 5.14.4, as 0.4.13 does)', 'unsupported'),
    set: { packages: { '@pyroscope/nodejs': '0.4.12' }, overrides: { '@datadog/pprof': '5.14.4' } },
  },
  pyroscope('0.4.13', 'oldest: pins @datadog/pprof 5.14.4'),
  pyroscope('0.6.1', 'oldest 0.6'),
  pyroscope('0.6.4', 'newest (uploads the raw pprof)'),
];

module.exports = { MATRIX };
