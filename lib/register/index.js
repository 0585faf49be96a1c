'use strict';

// customlabels/register: `node --require customlabels/register app.js` or
// `node --import customlabels/register app.mjs` (or either in NODE_OPTIONS).
// Every integration applies itself to the frameworks the app loads, with
// no line in the app; lib/register/config.js reads the configuration from
// the environment, lib/register/hooks.js sees the frameworks load. Per
// framework (README "Set up in one line" says why each):
//
//   express             Module._load: the Router/Layer patches of
//                       customlabels/express, and each app's handle()
//   fastify             diagnostics_channel 'fastify.initialization': the
//                       plugin's hooks on each new instance
//   koa, @koa/router,   Module._load (registerHooks for @koa/router's ESM
//   koa-router          build): the labels() middleware first in each app,
//                       the routers' route scopes
//   @hapi/hapi          Module._load: the plugin's patches on each server
//   hono                the routers' add(): the first handler of a request
//                       opens its scope
//   NestJS              through its platform (express or fastify)
//   @apollo/server      ApolloServer's request methods: every server
//   graphql-yoga        createYoga: a yogaPlugin() first in every Yoga
//   bullmq              Worker#callProcessJob, Queue#add/#addBulk,
//                       FlowProducer#add/#addBulk; a sandbox's ChildProcessor
//   next                its server's request handling and the app router's
//                       work store (lib/integrations/next.js)
//   OpenTelemetry       the global context manager (whichever
//                       @opentelemetry/api copy registers it), wrapped in
//                       customlabels/otel's (span ids and attributes)
//   @grpc/grpc-js       Server#register/#addService, Channel#createCall
//                       (calls keep their caller's labels; no forwarding:
//                       that is the app's choice, and its own instrument()
//                       takes over with its options)
//   amqplib             both channel models' consume and publish
//
// It never requires a framework itself, and never fails the app: a
// framework it cannot instrument is a warning.

const kStarted = Symbol.for('customlabels.register.started');
const kConfig = Symbol.for('customlabels.register.config');

function start() {
  if (globalThis[kStarted] !== undefined) return globalThis[kStarted];
  const { readConfig } = require('./config');
  const { config, problems } = readConfig(process.env);
  // Before any integration is made: request-labels.js merges it.
  Object.defineProperty(globalThis, kConfig, { value: config });
  const hooks = require('./hooks');
  const on = (name) => config.integrations.has(name);
  const options = {};

  if (on('express')) {
    hooks.watch('express', (express) => {
      if (typeof express === 'function' && typeof express.Router === 'function' && express.application !== undefined) {
        require('../integrations/express').labelApps(express, options);
      }
    });
  }
  // (diagnostics_channel.subscribe is Node >= 18.7; before it, channel().)
  const subscribe = (name, fn) => {
    const dc = require('node:diagnostics_channel');
    if (typeof dc.subscribe === 'function') dc.subscribe(name, fn);
    else dc.channel(name).subscribe(fn);
  };
  if (on('fastify')) {
    subscribe('fastify.initialization', ({ fastify }) => {
      try {
        require('../integrations/fastify').labelInstance(fastify, options);
      } catch (err) {
        process.emitWarning(`customlabels/register could not instrument fastify: ${err && err.message}`, { code: 'CUSTOMLABELS_UNSUPPORTED_FRAMEWORK' });
      }
    });
  }
  if (on('koa')) {
    hooks.watch('koa', (koa) => {
      const Application = typeof koa === 'function' ? koa : koa && typeof koa.default === 'function' ? koa.default : undefined;
      if (Application !== undefined && typeof Application.prototype.callback === 'function') require('../integrations/koa').labelApps(Application, options);
    });
    for (const name of ['@koa/router', 'koa-router']) {
      hooks.watch(name, (mod) => {
        const Router = [mod, mod && mod.Router, mod && mod.default].find((r) => typeof r === 'function' && typeof r.prototype.register === 'function');
        if (Router !== undefined) require('../integrations/koa').instrument(Router);
      });
    }
    hooks.watchEsmBuild('@koa/router');
  }
  if (on('hapi')) {
    hooks.watch('@hapi/hapi', (hapi) => {
      if (hapi !== null && typeof hapi === 'object' && typeof hapi.server === 'function') require('../integrations/hapi').labelServers(hapi, options);
    });
  }
  if (on('hono')) {
    const routers = (mod) => {
      if (mod === null || typeof mod !== 'object') return;
      for (const value of Object.values(mod)) {
        if (typeof value === 'function' && value.prototype !== undefined && typeof value.prototype.add === 'function' && typeof value.prototype.match === 'function') {
          require('../integrations/hono').labelRouters(value, options);
        }
      }
    };
    const ROUTERS = ['smart-router', 'reg-exp-router', 'trie-router', 'pattern-router', 'linear-router'];
    hooks.watch('hono', (mod, file) => {
      // CommonJS: the routers hono's entry loaded; ESM: the router modules
      // report themselves (below).
      for (const r of ROUTERS) routers(hooks.loadedBeside(file, `dist/cjs/router/${r}/router.js`));
    });
    hooks.watch('hono:router', routers);
    for (const r of ROUTERS) {
      hooks.watch(`hono/router/${r}`, routers);
      hooks.esmFile('hono', `dist/router/${r}/router.js`, (url) => hooks.selfReport('hono:router', url));
    }
  }
  if (on('graphql')) {
    hooks.watchEsmBuild('@apollo/server');
    hooks.watch('@apollo/server', (apollo) => {
      if (apollo !== null && (typeof apollo === 'object' || typeof apollo === 'function') && typeof apollo.ApolloServer === 'function') {
        require('../integrations/graphql/apollo').labelAllServers(apollo, options);
      }
    });
    hooks.watch('graphql-yoga', (mod, file) => {
      const server = hooks.loadedBeside(file, 'cjs/server.js');
      if (server !== undefined && typeof server.createYoga === 'function') {
        server.createYoga = require('../integrations/graphql/envelop').labelYogas(server.createYoga, options);
      }
    });
    // (Guarded: a Yoga whose createYoga is no longer a function declaration
    // here runs unlabelled, with register's warning, rather than failing.)
    hooks.esmFile(
      'graphql-yoga',
      'esm/server.js',
      () =>
        "try { createYoga = globalThis[Symbol.for('customlabels.register.yoga')]?.(createYoga) ?? createYoga; } catch (err) { process.emitWarning(`customlabels/register could not instrument graphql-yoga: ${err && err.message}`, { code: 'CUSTOMLABELS_UNSUPPORTED_FRAMEWORK' }); }",
    );
    Object.defineProperty(globalThis, Symbol.for('customlabels.register.yoga'), {
      value: (createYoga) => require('../integrations/graphql/envelop').labelYogas(createYoga, options),
    });
  }
  if (on('bullmq')) {
    hooks.watch('bullmq', (mod, file) => {
      if (mod !== null && typeof mod === 'object' && typeof mod.Worker === 'function') require('../integrations/bullmq').labelQueues(mod, options);
      // A sandboxed processor's child process or worker thread.
      for (const f of ['dist/cjs/classes/child-processor.js']) {
        const child = hooks.loadedBeside(file, f);
        if (child !== undefined && typeof child.ChildProcessor === 'function') require('../integrations/bullmq').labelSandbox(child.ChildProcessor, options);
      }
    });
  }
  if (on('next')) {
    for (const name of ['next/dist/server/app-render/work-async-storage.external.js', 'next/dist/server/app-render/work-async-storage.external']) {
      hooks.watch(name, (mod) => require('../integrations/next').labelWorkStore(mod));
    }
    hooks.watchRequire(
      'next',
      (request) => request === './next-server' || request === './next-server.js',
      (mod) => {
        if (mod && typeof mod.default === 'function') require('../integrations/next').labelServer(mod.default, options);
      },
    );
  }
  if (on('otel')) {
    const otelOptions = config.otelAttributes === false ? { attributes: false } : { attributes: config.otelAttributes };
    require('./otel').observeGlobalContextManager(otelOptions);
  }
  if (on('grpc')) {
    hooks.watch('@grpc/grpc-js', (grpc) => {
      if (grpc !== null && typeof grpc === 'object' && typeof grpc.Server === 'function') require('../integrations/grpc').instrumentForRegister(grpc, config.labels);
    });
  }
  if (on('amqplib')) {
    for (const name of ['amqplib', 'amqplib/callback_api']) {
      hooks.watch(name, (amqplib, file) => {
        if (amqplib !== null && typeof amqplib === 'object' && typeof amqplib.connect === 'function') {
          require('../integrations/amqplib').instrumentForRegister(amqplib, typeof file === 'string' && require('node:path').isAbsolute(file) ? file : undefined, config.labels);
        }
      });
    }
  }

  const { esm } = hooks.start();
  if (problems.length > 0) {
    process.emitWarning(`customlabels/register: ${problems.join('; ')}. The rest of the configuration applies.`, { code: 'CUSTOMLABELS_REGISTER_CONFIG' });
  }
  const state = Object.freeze({ config, esm, problems });
  Object.defineProperty(globalThis, kStarted, { value: state });
  return state;
}

module.exports = { start };
