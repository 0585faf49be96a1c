'use strict';

// customlabels: withLabels, currentLabels, configure, supported, reason,
// strategy (lib/core/api.js) of this thread's instance (lib/core/index.js).
module.exports = require('./core').api;
