'use strict';

// Labelled BullMQ jobs (`customlabels/bullmq`). A job is produced in one
// process and processed, maybe much later, in another (or in a sandbox: a
// child process or a worker thread), so AsyncLocalStorage cannot carry the
// producer's labels: they travel in the job's data as plain data
// (bullmq/producer.js), and the processor runs each job under them, its
// queue and name, and the worker's own labels (bullmq/consumer.js).
//
//   await add(queue, 'resize', { image });
//   new Worker('thumbnails', processor(async (job) => resize(job.data), { labels: { pool: 'thumbnails' } }), { connection });
//
// customlabels/register does both with no line in the app (bullmq/patch.js).

const { LABELS_KEY } = require('../worker');
const { PARCA } = require('../kit/limits');
const { withJobLabels, withoutJobLabels, withFlowLabels, add, addBulk, addFlow } = require('./producer');
const { processor } = require('./consumer');

module.exports = {
  LABELS_KEY,
  MAX_LABELS: PARCA.MAX_LABELS,
  MAX_KEY_BYTES: PARCA.MAX_KEY_BYTES,
  MAX_VALUE_BYTES: PARCA.MAX_VALUE_BYTES,
  withJobLabels,
  withoutJobLabels,
  withFlowLabels,
  add,
  addBulk,
  addFlow,
  processor,
};
