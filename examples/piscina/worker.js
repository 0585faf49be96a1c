'use strict';

// The pool's task handler, wrapped so each task runs under its sender's
// labels, plus this pool's own label.

const { handler } = require('customlabels/worker');
const { burn } = require('../load');

module.exports = handler(
  ({ ms }) => {
    burn(ms);
    return ms;
  },
  { labels: { pool: 'thumbnails' } },
);
