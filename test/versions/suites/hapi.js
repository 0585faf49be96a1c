'use strict';

// hapi in test/versions (test/versions/suites.js says what a suite holds).

const e2e = require('../../js/integrations/e2e/hapi');
const { HTTP } = require('./labels');

module.exports = {
  ...e2e,
  published: HTTP,
  run: (entry, env) => e2e.run({ env }),
  builders: { '@hapi/hapi': (v) => ({ set: { packages: { '@hapi/hapi': v } } }) },
  notes: { '@hapi/hapi@21.4.10': '_execute, _lifecycle, _reply unchanged since 21.0.0' },
};
