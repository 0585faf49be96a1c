'use strict';

// customlabels/worker in the table of integrations (lib/integrations/index.js):
// by hand only (tasks are the app's own messages; register has nothing to
// patch).

const { defineIntegration } = require('../kit/integration');

module.exports = defineIntegration({
  name: 'worker',
  title: 'Worker threads and Piscina',
  subpath: './worker',
  labels: [],
  packages: {},
  testedWith: { piscina: '>=4.0.0 <6' },
  internals: [],
  reach: [],
});
