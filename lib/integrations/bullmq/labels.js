'use strict';

// What BullMQ jobs carry and run under (customlabels/bullmq): the producer's
// labels travel in the job's data (LABELS_KEY, `__customlabels`, as
// customlabels/worker sends them), and each job runs under `queue`, `job`,
// those and the worker's own. Job data comes from producers a worker may
// not control, so everything published of it stays within what the Parca
// agent keeps (kit/limits.js), and bad label data never fails a job: one
// warning (CUSTOMLABELS_JOB_LABELS).

const { carrier } = require('../kit/carried');

const QUEUE = 'queue';
const JOB = 'job';
// Not carried: the consumer sets queue and job; span ids describe the
// producer's request, not the job. One warning per thread, whatever went
// wrong first.
const { reserved: RESERVED, notCarried: NOT_CARRIED, warn } = carrier([QUEUE, JOB], { what: 'job', runs: 'jobs', code: 'CUSTOMLABELS_JOB_LABELS' });

module.exports = { QUEUE, JOB, RESERVED, NOT_CARRIED, warn };
