'use strict';

// BullMQ processors (customlabels/bullmq): processor(fn, options) wraps a
// processor, inline (`new Worker(name, processor(fn))`) or sandboxed (the
// processor file does `module.exports = processor(fn)`; BullMQ's sandboxed
// job has name, queueName and data too). Each job runs in one withLabels
// scope, nested in whatever scope the worker is in, that merges, lowest
// precedence first:
//   the producer's labels (job.data.__customlabels), in the room the others
//          leave (kit/carried.js mergeCarried),
//   queue  job.queueName, and job  job.name (facts of the job: a producer
//          that ran inside another job, or under a label called `job`,
//          never overrides them),
//   options.labels, the worker's own: an object (set up once) or a function
//          of the job (e.g. a tenant from job.data), which win; a `null`
//          value removes a key (`{ job: null }` leaves the job name out).
// Errors of fn pass through unchanged, so the job fails, retries and moves
// as it would unwrapped; fn's result is returned as it is (BullMQ awaits
// it). The wrapper keeps fn's arity, since an inline Worker creates an
// AbortSignal per job only for processors declared with 3 parameters, and
// passes on whatever signal BullMQ gives (a sandbox always gives one).
// `producerLabels: false` ignores the producer's labels (an untrusted
// producer that could pose as another tenant).
//
// Cost: one withLabels call per job, as a hand-written processor makes.
// Jobs whose producer attached nothing run under one frozen object per
// (queue, name) (with the worker's own labels), which withLabels finds its
// set for by identity; the others build their labels per job, as the
// hand-written `withLabels({ queue, job, ...carried }, fn)` does
// (bench/bullmq.js).

const { withLabels } = require('../../index');
const errors = require('../../core/errors');
const { LABELS_KEY } = require('../worker');
const { PARCA, cutValue: cut } = require('../kit/limits');
const { addLimited, toObject, mergeCarried, isPlainObject } = require('../kit/carried');
const { BoundedCache } = require('../kit/cache');
const { QUEUE, JOB, RESERVED, NOT_CARRIED, warn } = require('./labels');

// (queue, name) pairs whose labels are kept frozen (kit/cache.js): queues
// and job names are few in most apps; the bound guards against job names
// made per job.
const MAX_CACHED = 1024;
const hasOwn = Object.prototype.hasOwnProperty;
// Marks the processors processor() made (register leaves them as they are).
const kLabelled = Symbol.for('customlabels.bullmq.processor');

// options: { labels?: object | Map | (job) => labels, producerLabels?: boolean }
function readOptions(options) {
  if (options === undefined || options === null) return { own: null, ownFn: null, producer: true };
  if (typeof options !== 'object') throw errors.invalidOption('', 'an object', options);
  const { labels, producerLabels = true } = options;
  if (typeof producerLabels !== 'boolean') throw errors.invalidOption('producerLabels', 'a boolean', producerLabels);
  if (labels === undefined || labels === null) return { own: null, ownFn: null, producer: producerLabels };
  if (typeof labels === 'function') return { own: null, ownFn: labels, producer: producerLabels };
  if (typeof labels !== 'object') throw errors.invalidOption('labels', 'an object, a Map or a function', labels);
  // Validated as withLabels would (TypeError, its codes), then kept within
  // the limits: a label too long is a warning, never a failed start.
  const source = toObject(labels);
  let room = PARCA.MAX_LABELS;
  for (const key of RESERVED) if (!hasOwn.call(source, key)) room -= 1;
  const own = {};
  const problem = addLimited(own, source, room, null, true);
  if (problem !== null) warn(`options.labels: ${problem}`);
  return { own, ownFn: null, producer: producerLabels };
}

// The name of a job's queue: job.queueName (Job and BullMQ's sandboxed job),
// else the qualified name without its prefix.
function queueNameOf(job) {
  const name = job.queueName;
  if (typeof name === 'string') return name;
  const { queueQualifiedName: qualified, prefix } = job;
  if (typeof qualified === 'string' && typeof prefix === 'string' && qualified.startsWith(`${prefix}:`)) {
    return qualified.slice(prefix.length + 1);
  }
  return undefined;
}

// The labels the producer attached (a plain object), or undefined.
function producerOf(data) {
  if (typeof data !== 'object' || data === null || !hasOwn.call(data, LABELS_KEY)) return undefined;
  const carried = data[LABELS_KEY];
  if (isPlainObject(carried)) return carried;
  if (carried !== null && carried !== undefined) warn(`${LABELS_KEY} is ${errors.describe(carried)}, not an object`);
  return undefined;
}

// jobLabels(job) for one processor's options (readOptions'), nothing read
// twice: the base labels of a (queue, name), frozen, and per job the
// worker's own and the producer's merged over it.
function jobLabelsFor({ own, ownFn, producer }) {
  const bases = new BoundedCache(MAX_CACHED);

  function makeBase(queue, name) {
    const labels = {};
    if (typeof queue === 'string' && queue !== '') labels[QUEUE] = cut(queue);
    if (typeof name === 'string' && name !== '') labels[JOB] = cut(name);
    if (own !== null) Object.assign(labels, own);
    return Object.freeze(labels);
  }

  const baseOf = (queue, name) => (typeof queue === 'string' && typeof name === 'string' ? bases.get(`${queue}\0${name}`, () => makeBase(queue, name)) : makeBase(queue, name));

  return function jobLabels(job) {
    const base = baseOf(queueNameOf(job), job.name);
    const carried = producer ? producerOf(job.data) : undefined;
    return mergeCarried(base, ownFn, job, carried, NOT_CARRIED, warn, 'options.labels(job)');
  };
}

// Wraps a BullMQ processor so each job runs under its labels.
//   new Worker('mail', processor(async (job) => send(job.data), { labels: { pool: 'mail' } }), opts);
//   module.exports = processor(async (job) => ...);          // a sandboxed processor file
function processor(fn, options) {
  if (typeof fn !== 'function') throw errors.invalidCallback(fn);
  const jobLabels = jobLabelsFor(readOptions(options));

  function run(job, token, signal) {
    let labels;
    try {
      labels = jobLabels(job);
    } catch (err) {
      // Not a job as BullMQ makes them: run it as it is.
      warn(`not a job: ${String(err && err.message)}`);
      return fn(job, token, signal);
    }
    return withLabels(labels, () => fn(job, token, signal));
  }

  // BullMQ reads processor.length: 3 parameters ask for an AbortSignal.
  const labelled =
    fn.length >= 3
      ? function labelledProcessor(job, token, signal) {
          return run(job, token, signal);
        }
      : function labelledProcessor(job, token) {
          return run(job, token, arguments[2]);
        };
  Object.defineProperty(labelled, kLabelled, { value: true });
  return labelled;
}

const isLabelled = (fn) => typeof fn === 'function' && fn[kLabelled] === true;

module.exports = { processor, jobLabelsFor, readOptions, isLabelled };
