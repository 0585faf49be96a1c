'use strict';

// customlabels/bullmq in the table of integrations (lib/integrations/index.js).

const { defineIntegration } = require('../kit/integration');

const PACKAGE = 'bullmq';

const integration = defineIntegration({
  name: 'bullmq',
  title: 'BullMQ',
  subpath: './bullmq',
  packages: { [PACKAGE]: '5.x || 6.x' },
  internals: [
    { package: PACKAGE, name: 'Worker#callProcessJob', why: "where a worker calls its processor for each job (this.processFn); BullMQ's telemetry option traces jobs but opens no scope around the processor" },
    { package: PACKAGE, name: 'ChildProcessor#init (dist/cjs/classes/child-processor.js)', why: "a sandboxed processor is loaded by BullMQ's child process or worker thread, not by the app; init() is where it is loaded" },
  ],
  reach: [
    {
      kind: 'module',
      package: PACKAGE,
      patch: (bullmq, { version }) => require('./patch').labelQueues(integration, bullmq, version),
    },
    {
      kind: 'file',
      package: PACKAGE,
      file: 'dist/cjs/classes/child-processor.js',
      patch: (child, { version }) => require('./patch').labelSandbox(integration, child, version),
    },
  ],
  unpatch: () => require('./patch').unpatchBullmq(),
});

module.exports = integration;
