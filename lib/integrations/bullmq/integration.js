'use strict';

// customlabels/bullmq in the table of integrations (lib/integrations/index.js).

const { defineIntegration } = require('../kit/integration');

const PACKAGE = 'bullmq';
const patch = () => require('./patch');
const unpatch = () => patch().unpatchBullmq();
const classes = (file) => `bullmq/dist/cjs/classes/${file}`;

const integration = defineIntegration({
  name: 'bullmq',
  title: 'BullMQ',
  subpath: './bullmq',
  labels: ['queue', 'job'],
  packages: { [PACKAGE]: '5.x || 6.x' },
  internals: [
    {
      package: PACKAGE,
      of: 'bullmq',
      name: 'Worker#callProcessJob',
      why: "(by hand, processor() wraps the app's own function) where a worker calls its processor for each job (this.processFn); BullMQ's telemetry option traces jobs but opens no scope around the processor",
      register: true,
      check: (Worker) => typeof Worker.prototype.callProcessJob === 'function',
      double: { edits: [[classes('worker.js'), 'callProcessJob', 'callProcessJobMoved']] },
    },
    {
      package: PACKAGE,
      of: 'sandbox',
      name: 'ChildProcessor#init (dist/cjs/classes/child-processor.js)',
      why: "a sandboxed processor is loaded by BullMQ's child process or worker thread, not by the app; init() is where it is loaded",
      register: true,
      check: (ChildProcessor) => typeof ChildProcessor.prototype.init === 'function',
      double: {
        edits: [
          [classes('child-processor.js'), '    async init(processorFile) {', '    async initMoved(processorFile) {'],
          [classes('main-base.js'), 'childProcessor.init(msg.value)', 'childProcessor.initMoved(msg.value)'],
        ],
      },
    },
  ],
  reach: [
    { kind: 'module', package: PACKAGE, patch: (bullmq, context) => patch().patchBullmq(bullmq, context), unpatch },
    { kind: 'file', package: PACKAGE, file: 'dist/cjs/classes/child-processor.js', patch: (child, context) => patch().patchSandbox(child, context), unpatch },
  ],
});

module.exports = integration;
