'use strict';

// The pool's task handler, wrapped so each task runs under its sender's
// labels, plus this pool's own label.

const { handler } = require('customlabels/worker');

module.exports = handler(
  ({ ms }) => {
    const end = process.hrtime.bigint() + BigInt(ms * 1e6);
    while (process.hrtime.bigint() < end);
    return ms;
  },
  { labels: { pool: 'thumbnails' } },
);
