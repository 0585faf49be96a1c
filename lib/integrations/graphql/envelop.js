'use strict';

// GraphQL Yoga 5 (yogaPlugin(): one scope per operation, around the params
// handler) and any other envelop-based server (envelopPlugin(): a scope
// around each of parse, validate, execute and subscribe); a subscription's
// events run in the operation's scope again as the response pulls them
// (graphql/index.js says more).

const { warnUnsupported, versionOfValue } = require('../kit/versions');
const { Patcher } = require('../kit/patcher');
const { operationFor, operationOfParams, safely } = require('./outline');
const { createLabeller, headersOf } = require('./labeller');

function isAsyncIterable(value) {
  return typeof value === 'object' && value !== null && typeof value[Symbol.asyncIterator] === 'function';
}

// A subscription's events are executed when the response pulls them: run
// each pull in the operation's scope again.
function labelledIterable(iterable, runInScope) {
  if (!isAsyncIterable(iterable)) return iterable;
  const it = iterable[Symbol.asyncIterator]();
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next(value) {
      return runInScope(() => it.next(value));
    },
    return(value) {
      return typeof it.return === 'function' ? runInScope(() => it.return(value)) : Promise.resolve({ done: true, value });
    },
    throw(error) {
      return typeof it.throw === 'function' ? runInScope(() => it.throw(error)) : Promise.reject(error);
    },
  };
}

function afterMaybePromise(value, fn) {
  return value !== null && typeof value === 'object' && typeof value.then === 'function' ? value.then(fn) : fn(value);
}

// The run and withEvents of a plugin's labeller.
function runners(labeller) {
  const run = (op, request, fn) => labeller.run(op, request, headersOf(request), fn);
  const withEvents = (op, request, result) => afterMaybePromise(result, (r) => labelledIterable(r, (next) => run(op, request, next)));
  return { run, withEvents };
}

// Marks the plugins yogaPlugin() makes (customlabels/register adds one to
// a Yoga that has none).
const kYoga = Symbol.for('customlabels.graphql.yogaPlugin');

// (`integration`: customlabels/graphql's descriptor, here and below.)
function yogaPlugin(options, integration) {
  const labeller = createLabeller(options, integration);
  if (!labeller.active) return { [kYoga]: true };
  const { run, withEvents } = runners(labeller);
  let version = null; // the Yoga's, found when it starts
  return {
    [kYoga]: true,
    onYogaInit({ yoga }) {
      if (yoga !== null && typeof yoga === 'object') version = versionOfValue(yoga.constructor, 'graphql-yoga');
    },
    onParams({ setParamsHandler, paramsHandler }) {
      if (typeof setParamsHandler !== 'function' || typeof paramsHandler !== 'function') {
        // Yoga before 5.11 (or after it dropped it): unlabelled, one warning.
        warnUnsupported(integration.name, 'graphql-yoga', version, integration.packages['graphql-yoga'], 'the onParams hook has no setParamsHandler (Yoga 5.11+); envelopPlugin() labels parse, validate and execute there');
        return;
      }
      setParamsHandler(function labelledParamsHandler(payload) {
        const { params, request } = payload;
        if (typeof params !== 'object' || params === null) return paramsHandler(payload);
        const op = safely(() => operationOfParams(params.query, params.operationName, params.extensions));
        const result = run(op, request, () => paramsHandler(payload));
        return op.type === 'subscription' ? withEvents(op, request, result) : result;
      });
    },
  };
}

function envelopPlugin(options, integration) {
  const labeller = createLabeller(options, integration);
  if (!labeller.active) return {};
  const { run, withEvents } = runners(labeller);
  const requestOf = (context) => (typeof context === 'object' && context !== null ? context.request : undefined);
  const operationNameOf = (context) => {
    const params = typeof context === 'object' && context !== null ? context.params : undefined;
    return typeof params === 'object' && params !== null ? params.operationName : undefined;
  };
  return {
    onParse({ context, params, parseFn, setParseFn }) {
      const source = params && params.source;
      const text = typeof source === 'string' ? source : source && typeof source.body === 'string' ? source.body : undefined;
      const op = safely(() => operationFor(text, operationNameOf(context)));
      const request = requestOf(context);
      setParseFn((...args) => run(op, request, () => parseFn(...args)));
    },
    onValidate({ context, params, validateFn, setValidationFn }) {
      const op = safely(() => operationFor(params && params.documentAST, operationNameOf(context)));
      const request = requestOf(context);
      setValidationFn((...args) => run(op, request, () => validateFn(...args)));
    },
    onExecute({ args, executeFn, setExecuteFn }) {
      const op = safely(() => operationFor(args.document, args.operationName));
      const request = requestOf(args.contextValue);
      setExecuteFn((...a) => run(op, request, () => executeFn(...a)));
    },
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const op = safely(() => operationFor(args.document, args.operationName));
      const request = requestOf(args.contextValue);
      setSubscribeFn((...a) => withEvents(op, request, run(op, request, () => subscribeFn(...a))));
    },
  };
}

// customlabels/register: createYoga wrapped so that every Yoga gets a
// yogaPlugin(options) first, unless its plugins have one of their own.
function labelYogas(createYoga, options, integration) {
  if (typeof createYoga !== 'function' || createYoga[kYoga] === true) return createYoga;
  const plugin = yogaPlugin(options, integration);
  const wrapped = function createYoga_(yogaOptions, ...rest) {
    const own = yogaOptions !== null && typeof yogaOptions === 'object' ? yogaOptions.plugins : undefined;
    if (Array.isArray(own) && own.some((p) => p !== null && typeof p === 'object' && p[kYoga] === true)) return createYoga(yogaOptions, ...rest);
    const plugins = Array.isArray(own) ? [plugin, ...own] : [plugin];
    return createYoga({ ...yogaOptions, plugins }, ...rest);
  };
  wrapped[kYoga] = true;
  return wrapped;
}

// customlabels/register, Yoga's CommonJS build: cjs/server.js's createYoga
// (`server`, its exports), wrapped.
const patcher = new Patcher('graphql-yoga');
function patchYogaExports(server, context) {
  if (server === null || typeof server !== 'object' || !context.integration.guard('yoga', server, context)) return;
  patcher.wrap(server, 'createYoga', (createYoga) => labelYogas(createYoga, {}, context.integration));
}

// Its ES module build: the createYoga function esm/server.js declares,
// which takes the wrapper this returns.
function patchYogaBinding(createYoga, context) {
  if (!context.integration.guard('yoga', createYoga, context)) return createYoga;
  return labelYogas(createYoga, {}, context.integration);
}

const unpatchYogas = () => patcher.unwrapAll();

module.exports = { yogaPlugin, envelopPlugin, patchYogaExports, patchYogaBinding, unpatchYogas };
