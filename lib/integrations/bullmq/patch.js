'use strict';

// customlabels/register and BullMQ: a `bullmq` module's (CommonJS exports
// or ESM namespace) inline workers run each job under its labels, as
// processor() does, unless the processor is one processor() made;
// Queue#add, #addBulk and FlowProducer#add, #addBulk attach the current
// labels, as add(), addBulk() and addFlow() do, unless the data carries
// labels already. In a sandboxed processor's child process or worker thread
// (which inherit NODE_OPTIONS), BullMQ's ChildProcessor runs each job
// under its labels.

const { withLabels } = require('../../index');
const { Patcher } = require('../kit/patcher');
const { isPlainObject } = require('../kit/carried');
const { withJobLabels, withFlowLabels, carriedLabels, labelJobs, carries } = require('./producer');
const { processor, jobLabelsFor, readOptions, isLabelled } = require('./consumer');

const patcher = new Patcher('bullmq');

function patchBullmq(bullmq, context) {
  if (bullmq === null || typeof bullmq !== 'object' || typeof bullmq.Worker !== 'function') return;
  const { Worker, Queue, FlowProducer } = bullmq;
  if (!context.integration.guard('bullmq', Worker, context)) return;
  const jobLabels = jobLabelsFor(readOptions(undefined));
  patcher.wrap(Worker.prototype, 'callProcessJob', (call) =>
    function callProcessJob(job, token, signal) {
      if (this.processFn === undefined || isLabelled(this.processFn)) return call.apply(this, arguments);
      let labels;
      try {
        labels = jobLabels(job);
      } catch {
        return call.apply(this, arguments);
      }
      return withLabels(labels, () => call.call(this, job, token, signal));
    },
  );
  if (typeof Queue === 'function') {
    patcher.wrap(Queue.prototype, 'add', (add) =>
      function add_(name, data, opts) {
        return add.call(this, name, carries(data) ? data : withJobLabels(data), opts);
      },
    );
    patcher.wrap(Queue.prototype, 'addBulk', (addBulk) =>
      function addBulk_(jobs) {
        return addBulk.call(this, labelJobs(jobs, carriedLabels()));
      },
    );
  }
  if (typeof FlowProducer === 'function') {
    patcher.wrap(FlowProducer.prototype, 'add', (add) =>
      function add_(flow, opts) {
        return add.call(this, isPlainObject(flow) && !carries(flow.data) ? withFlowLabels(flow) : flow, opts);
      },
    );
    patcher.wrap(FlowProducer.prototype, 'addBulk', (addBulk) =>
      function addBulk_(flows) {
        return addBulk.call(this, Array.isArray(flows) ? flows.map((f) => (isPlainObject(f) && !carries(f.data) ? withFlowLabels(f) : f)) : flows);
      },
    );
  }
}

// In a sandbox: the processor ChildProcessor#init loads runs each job under
// its labels.
function patchSandbox(child, context) {
  const ChildProcessor = child !== null && typeof child === 'object' ? child.ChildProcessor : undefined;
  if (typeof ChildProcessor !== 'function' || !context.integration.guard('sandbox', ChildProcessor, context)) return;
  patcher.wrap(ChildProcessor.prototype, 'init', (init) =>
    async function init_(...args) {
      const out = await init.apply(this, args);
      if (typeof this.processor === 'function' && !isLabelled(this.processor)) this.processor = processor(this.processor);
      return out;
    },
  );
}

const unpatchBullmq = () => patcher.unwrapAll();

module.exports = { patchBullmq, patchSandbox, unpatchBullmq };
