'use strict';

// Worker threads and Piscina in test/versions (test/versions/suites.js says
// what a suite holds): by hand only, tasks being the app's own messages.

const e2e = require('../../js/integrations/e2e/worker');

module.exports = {
  ...e2e,
  run: (entry, env) => e2e.run({ env }),
  served() {},
  wirings: ['by hand'],
  builders: { piscina: (v) => ({ set: { packages: { piscina: v } } }) },
};
