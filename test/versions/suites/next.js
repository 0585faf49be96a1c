'use strict';

// Next.js in test/versions: the app (test/js/fixtures/next-app) built with
// each version, run under register (there is no line to add by hand), with
// the OpenTelemetry SDK its instrumentation.js uses (test/versions/
// suites.js says what a suite holds).

const semver = require('semver');
const e2e = require('../../js/integrations/e2e/next');

const nextOtel = { '@opentelemetry/api': '1.9.1', '@opentelemetry/context-async-hooks': '2.12.1', '@opentelemetry/sdk-trace-base': '2.12.1' };
const nextSet = (v, react = semver.lt(v, '15.1.0') ? '18.3.1' : '19.3.1') => ({ set: { packages: { next: v, react, 'react-dom': react, ...nextOtel } }, wirings: ['register'] });

module.exports = {
  published: ['method', 'route', 'tenant'],
  run: (entry, env) => e2e.run({ dir: env.CUSTOMLABELS_VERSIONS_DIR, env }),
  served: (result) => e2e.served(result),
  checkpoints: (result) => e2e.checkpoints(result),
  wirings: ['register'],
  builders: { next: (v) => nextSet(v) },
  hand: (entry, { unsupported }) => [entry('next', '15.0.0-rc.1', 'just outside (a 15.0.0 prerelease)', unsupported)],
  notes: {
    'next@15.0.0': 'withWorkStore: storage.run(store, fn, store); React 18',
    'next@16.4.6': 'storage.run(workStore, fn, req, res, ...)',
    'next@14.2.35': 'register only, as every Next.js entry',
  },
};
