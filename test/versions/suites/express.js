'use strict';

// Express in test/versions (test/versions/suites.js says what a suite holds).

const semver = require('semver');
const e2e = require('../../js/integrations/e2e/express');
const { HTTP } = require('./labels');

module.exports = {
  ...e2e,
  published: HTTP,
  report: ['router'],
  run: (entry, env) => e2e.run({ module: 'express', env }),
  builders: {
    // express.json before 4.16 is a throwing getter: body-parser of its own.
    express: (v) => ({ set: { packages: { express: v, ...(semver.lt(v, '4.16.0') ? { 'body-parser': '1.20.3' } : {}) } }, ...(semver.lt(v, '4.15.5') ? { node: 22 } : {}) }),
  },
  hand: (entry) => [
    entry('express', '4.15.5', 'newest without express.json (body-parser of its own)'),
    entry('express', '4.16.0', 'express.json first; its body-parser reads a chunked body in the socket context (raw-body 2.3)'),
    entry('express', '4.17.3', 'newest whose body-parser loses the request context across a chunked body (raw-body 2.4.3)'),
    entry('express', '4.18.0', 'body-parser 1.20 binds the body read to its context (raw-body 2.5.1); setImmediate after 100 sync layers'),
    entry('express', '5.0.0', 'oldest 5, with the oldest router 2 (2.0.0: params on the layer, no rawPath)', { overrides: { router: '2.0.0' } }),
    entry('express', '5.3.0', 'newest 5 (router 2.3: layer.rawPath, match() returns params)'),
    entry('express', '5.3.0', 'newest 5 with router 2.2.0, the newest router without layer.rawPath', { overrides: { router: '2.2.0' } }),
  ],
  notes: {
    'express@4.5.1': 'no Layer#handle_request (route stacks of plain objects)',
    'express@4.6.0': 'Layer#handle_request and process_params(layer, called, req, res, done)',
  },
};
