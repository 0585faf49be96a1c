'use strict';

// Labelled BullMQ jobs (`customlabels/bullmq`). A job is produced in one
// process and processed, maybe much later, in another (or in a sandbox: a
// child process or a worker thread), so AsyncLocalStorage cannot carry the
// producer's labels: they travel in the job's data as plain data, in the
// property the worker integration uses (LABELS_KEY, `__customlabels`), and
// the processor runs each job under them.
//
// Producer side: add(queue, name, data, opts), addBulk(queue, jobs) and
// addFlow(flowProducer, flow, opts) attach the labels current when the job is
// added; withJobLabels(data, labels?) and withFlowLabels(flow, labels?) do
// it for any other path (job scheduler templates, FlowProducer#addBulk).
// As in worker.js the data is shallow-copied (the caller's object is never
// touched) and only plain-object data can carry labels; `undefined` data
// (queue.add('cleanup')) becomes `{ __customlabels }`, since BullMQ stores
// it as `{}` anyway. Arrays, primitives, null and class instances are sent
// unchanged and run with the consumer's labels only. By default the labels
// attached are the current ones minus `queue` and `job` (the consumer sets
// those) and minus the OpenTelemetry ids (`trace_id`, `span_id`,
// `local_root_span_id`: the producer's span ended long before the job runs,
// and a per-request id would make every job's set new).
//
// Consumer side: processor(fn, options) wraps a processor, inline
// (`new Worker(name, processor(fn))`) or sandboxed (the processor file does
// `module.exports = processor(fn)`; BullMQ's sandboxed job has name,
// queueName and data too). Each job runs in one withLabels scope, nested in
// whatever scope the worker is in, that merges, lowest precedence first:
//   the producer's labels (job.data.__customlabels),
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
//
// Why job.data keeps its `__customlabels` (worker.js deletes it from the
// receiver's copy of a message): job.data is not a transient copy but the
// job's persisted record. The same Job object is what BullMQ emits to
// 'completed'/'failed' listeners, what QueueEvents and dashboards show (from
// Redis, where the property is in any case), and what job.updateData(data)
// writes back: a processor that does `job.updateData({ ...job.data, step })`
// keeps the labels for the job's retries, where a stripped copy would lose
// them. Code that must see the data without it (a strict schema) calls
// withoutJobLabels(job.data).
//
// Limits. Labels are read by profilers that keep at most 10 labels, keys of
// 25 bytes and values of 53 bytes (the Parca agent), and a job's labels can
// come from producers the worker does not control. So every label this
// module publishes is within them: values (the job name included) are cut
// to 53 bytes of UTF-8 on a character boundary, keys over 25 bytes and
// values that are not strings, numbers or booleans are left out, and the
// producer's labels fill only the room queue, job and the worker's own leave
// in 10 (labels of scopes the worker itself runs in, if any, come on top). Bad label data in
// a job never fails it: the job runs with what is valid, and the process
// gets one warning (CUSTOMLABELS_JOB_LABELS). Where a producer must not set
// labels at all (an untrusted one that could pose as another tenant),
// producerLabels: false ignores them.
//
// Cost: one withLabels call per job, as a hand-written processor makes.
// Jobs whose producer attached nothing run under one frozen object per
// (queue, name) (with the worker's own labels), which withLabels finds its
// set for by identity; the others build their labels per job, as the
// hand-written `withLabels({ queue, job, ...carried }, fn)` does
// (bench/bullmq.js, and the integrations suite of bench/run.js).

const { withLabels, currentLabels } = require('../index');
const errors = require('../core/errors');
const { warnOnce } = require('../core/warnings');
const { LABELS_KEY, withTaskLabels, isPlainObject } = require('./worker');
const { PARCA, cutValue: cut } = require('./reader-limits');
const { addLimited, toObject, TRACE_IDS } = require('./carried');

const { MAX_LABELS, MAX_KEY_BYTES, MAX_VALUE_BYTES } = PARCA;
// (queue, name) pairs whose labels are kept frozen: queues and job names are
// few in most apps; the bound guards against job names made per job.
const MAX_CACHED = 1024;

const QUEUE = 'queue';
const JOB = 'job';
const RESERVED = new Set([QUEUE, JOB]);
// Not carried by default: the consumer sets queue and job; span ids describe
// the producer's request, not the job.
const NOT_CARRIED = new Set([QUEUE, JOB, ...TRACE_IDS]);

const hasOwn = Object.prototype.hasOwnProperty;

// One warning per thread, whatever went wrong first.
const warn = (reason) =>
  warnOnce('job-labels', `customlabels: job labels not published as given (${reason}); jobs run with the labels that are valid`, 'CUSTOMLABELS_JOB_LABELS');


// --- producer side ----------------------------------------------------------

// The labels a job carries: the current ones (or `labels`; null: none)
// within limits, or null if none.
function carriedLabels(labels) {
  if (labels === null) return null;
  const source = labels === undefined ? currentLabels() : toObject(labels);
  const carried = {};
  const problem = addLimited(carried, source, MAX_LABELS - RESERVED.size, labels === undefined ? NOT_CARRIED : RESERVED, false);
  if (problem !== null) warn(problem);
  return Object.keys(carried).length === 0 ? null : carried;
}

function attach(data, carried) {
  if (carried === null) return data;
  if (data === undefined) return { [LABELS_KEY]: carried };
  return withTaskLabels(data, carried);
}

// The job data to add: `data` with the current labels (or `labels`; null:
// none) in LABELS_KEY (a shallow copy), or `data` itself when there are none
// or it cannot carry them.
function withJobLabels(data, labels) {
  return attach(data, carriedLabels(labels));
}

// `data` without LABELS_KEY (a shallow copy; `data` itself if it has none).
function withoutJobLabels(data) {
  if (!isPlainObject(data) || !hasOwn.call(data, LABELS_KEY)) return data;
  const copy = { ...data };
  delete copy[LABELS_KEY];
  return copy;
}

// queue.add(name, data, opts) with the current labels attached.
function add(queue, name, data, opts) {
  return queue.add(name, withJobLabels(data), opts);
}

function labelJobs(jobs, carried) {
  if (carried === null || !Array.isArray(jobs)) return jobs;
  return jobs.map((job) => (isPlainObject(job) ? { ...job, data: attach(job.data, carried) } : job));
}

// queue.addBulk(jobs) with the current labels attached to each job's data.
function addBulk(queue, jobs) {
  return queue.addBulk(labelJobs(jobs, carriedLabels()));
}

function labelFlow(node, carried) {
  if (!isPlainObject(node)) return node;
  const out = { ...node, data: attach(node.data, carried) };
  if (Array.isArray(node.children)) out.children = node.children.map((child) => labelFlow(child, carried));
  return out;
}

// A FlowProducer flow (a tree of jobs) with the current labels (or
// `labels`) attached to every job of it.
function withFlowLabels(flow, labels) {
  const carried = carriedLabels(labels);
  return carried === null ? flow : labelFlow(flow, carried);
}

// flowProducer.add(flow, opts) with the current labels on every job.
function addFlow(flowProducer, flow, opts) {
  return flowProducer.add(withFlowLabels(flow), opts);
}

// --- consumer side ----------------------------------------------------------

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
  let room = MAX_LABELS;
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

// Builds jobLabels(job) for one processor's options.
function jobLabelsFor({ own, ownFn, producer }) {
  const byQueue = new Map();
  let cached = 0;

  // { labels, count } for (queue, name): queue and job, then the worker's
  // own; labels frozen (withLabels finds its set by identity), count its
  // non-null labels.
  function makeBase(queue, name) {
    const labels = {};
    if (typeof queue === 'string' && queue !== '') labels[QUEUE] = cut(queue);
    if (typeof name === 'string' && name !== '') labels[JOB] = cut(name);
    if (own !== null) Object.assign(labels, own);
    let count = 0;
    for (const key in labels) if (labels[key] !== null) count += 1;
    return { labels: Object.freeze(labels), count };
  }

  function baseOf(queue, name) {
    let byName = byQueue.get(queue);
    if (byName === undefined) {
      if (cached >= MAX_CACHED) return makeBase(queue, name);
      byName = new Map();
      byQueue.set(queue, byName);
    }
    let base = byName.get(name);
    if (base === undefined) {
      base = makeBase(queue, name);
      if (cached < MAX_CACHED) {
        cached += 1;
        byName.set(name, base);
      }
    }
    return base;
  }

  // The worker's own labels of this job (within limits; those replacing one
  // of `base` take no room), or null.
  function ownOf(job, room, base) {
    let labels;
    try {
      labels = ownFn(job);
    } catch (err) {
      warn(`options.labels(job) threw: ${err && err.message}`);
      return null;
    }
    if (labels === undefined || labels === null) return null;
    let source;
    try {
      source = isPlainObject(labels) ? labels : toObject(labels);
    } catch (err) {
      warn(`options.labels(job) returned ${errors.describe(labels)}`);
      return null;
    }
    const out = {};
    const problem = addLimited(out, source, room, null, true, base);
    if (problem !== null) warn(`options.labels(job): ${problem}`);
    return out;
  }

  // The labels the producer attached (a plain object), or undefined.
  function producerOf(data) {
    if (typeof data !== 'object' || data === null || !hasOwn.call(data, LABELS_KEY)) return undefined;
    const carried = data[LABELS_KEY];
    if (isPlainObject(carried)) return carried;
    if (carried !== null && carried !== undefined) warn(`${LABELS_KEY} is ${errors.describe(carried)}, not an object`);
    return undefined;
  }

  return function jobLabels(job) {
    const base = baseOf(queueNameOf(job), job.name);
    const carried = producer ? producerOf(job.data) : undefined;
    if (carried === undefined && ownFn === null) return base.labels;
    return merge(job, base, carried);
  };

  // The labels of a job: the base, the worker's own of this job, and the
  // producer's in the room they leave.
  function merge(job, base, carried) {
    const out = { ...base.labels };
    let count = base.count;
    if (ownFn !== null) {
      // Room for the worker's own: those replacing a base label take none.
      const mine = ownOf(job, MAX_LABELS - count, out);
      if (mine !== null) {
        for (const key in mine) {
          const was = hasOwn.call(out, key) && out[key] !== null;
          const is = mine[key] !== null;
          count += (is ? 1 : 0) - (was ? 1 : 0);
          out[key] = mine[key];
        }
      }
    }
    if (carried !== undefined) {
      // (Never a queue, job or trace id from the job's data: a producer's
      // trace ids describe its request, not this job.)
      const problem = addLimited(out, carried, MAX_LABELS - count, NOT_CARRIED, false);
      if (problem !== null) warn(problem);
    }
    return out;
  }
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

// --- customlabels/register ---------------------------------------------------

const kLabelled = Symbol.for('customlabels.bullmq.processor');
// Symbol.for: copies of this package patch a prototype once between them.
function patchOnce(proto, name, wrap) {
  const patched = Symbol.for(`customlabels.bullmq.patched.${name}`);
  if (proto === undefined || proto === null || typeof proto[name] !== 'function' || hasOwn.call(proto, patched)) return;
  Object.defineProperty(proto, patched, { value: true });
  proto[name] = wrap(proto[name]);
}

// customlabels/register: a `bullmq` module's (CommonJS exports or ESM
// namespace) inline workers run each job under its labels, as processor()
// does, unless the processor is one processor() made; Queue#add, #addBulk
// and FlowProducer#add, #addBulk attach the current labels, as add(),
// addBulk() and addFlow() do, unless the data carries labels already.
function labelQueues(bullmq, options) {
  const jobLabels = jobLabelsFor(readOptions(options));
  const Worker = bullmq.Worker;
  patchOnce(Worker && Worker.prototype, 'callProcessJob', (call) =>
    function callProcessJob(job, token, signal) {
      if (this.processFn === undefined || this.processFn[kLabelled] === true) return call.call(this, job, token, signal);
      let labels;
      try {
        labels = jobLabels(job);
      } catch {
        return call.call(this, job, token, signal);
      }
      return withLabels(labels, () => call.call(this, job, token, signal));
    },
  );
  const carries = (data) => isPlainObject(data) && hasOwn.call(data, LABELS_KEY);
  const Queue = bullmq.Queue;
  patchOnce(Queue && Queue.prototype, 'add', (add_) =>
    function add(name, data, opts) {
      return add_.call(this, name, carries(data) ? data : withJobLabels(data), opts);
    },
  );
  patchOnce(Queue && Queue.prototype, 'addBulk', (addBulk_) =>
    function addBulk(jobs) {
      const carried = carriedLabels();
      const labelled = Array.isArray(jobs) ? jobs.map((job) => (isPlainObject(job) && !carries(job.data) ? { ...job, data: attach(job.data, carried) } : job)) : jobs;
      return addBulk_.call(this, labelled);
    },
  );
  const FlowProducer = bullmq.FlowProducer;
  patchOnce(FlowProducer && FlowProducer.prototype, 'add', (addFlow_) =>
    function add(flow, opts) {
      return addFlow_.call(this, isPlainObject(flow) && !carries(flow.data) ? withFlowLabels(flow) : flow, opts);
    },
  );
  patchOnce(FlowProducer && FlowProducer.prototype, 'addBulk', (addBulk_) =>
    function addBulk(flows) {
      return addBulk_.call(this, Array.isArray(flows) ? flows.map((f) => (isPlainObject(f) && !carries(f.data) ? withFlowLabels(f) : f)) : flows);
    },
  );
}

// customlabels/register, in a sandboxed processor's child process or worker
// thread: BullMQ's ChildProcessor runs each job under its labels.
function labelSandbox(ChildProcessor, options) {
  const wrapFn = (fn) => (fn[kLabelled] === true ? fn : processor(fn, options));
  patchOnce(ChildProcessor && ChildProcessor.prototype, 'init', (init) =>
    async function (...args) {
      const out = await init.apply(this, args);
      if (typeof this.processor === 'function') this.processor = wrapFn(this.processor);
      return out;
    },
  );
}

module.exports = {
  LABELS_KEY,
  MAX_LABELS,
  MAX_KEY_BYTES,
  MAX_VALUE_BYTES,
  withJobLabels,
  withoutJobLabels,
  withFlowLabels,
  add,
  addBulk,
  addFlow,
  processor,
  labelQueues,
  labelSandbox,
};
