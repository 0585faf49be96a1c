'use strict';

// What BullMQ jobs carry and run under (customlabels/bullmq): the producer's
// labels travel in the job's data (LABELS_KEY, `__customlabels`, as
// customlabels/worker sends them), and each job runs under `queue`, `job`,
// those and the worker's own. Job data comes from producers a worker may
// not control, so everything published of it stays within what the Parca
// agent keeps (kit/limits.js), and bad label data never fails a job: one
// warning (CUSTOMLABELS_JOB_LABELS).

const { warnOnce } = require('../../core/warnings');
const { TRACE_IDS } = require('../kit/carried');

const QUEUE = 'queue';
const JOB = 'job';
const RESERVED = new Set([QUEUE, JOB]);
// Not carried by default: the consumer sets queue and job; span ids describe
// the producer's request, not the job.
const NOT_CARRIED = new Set([QUEUE, JOB, ...TRACE_IDS]);

// One warning per thread, whatever went wrong first.
const warn = (reason) =>
  warnOnce('job-labels', `customlabels: job labels not published as given (${reason}); jobs run with the labels that are valid`, 'CUSTOMLABELS_JOB_LABELS');

module.exports = { QUEUE, JOB, RESERVED, NOT_CARRIED, warn };
