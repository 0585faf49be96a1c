'use strict';

// gRPC (@grpc/grpc-js) in test/versions (test/versions/suites.js says what
// a suite holds).

const e2e = require('../../js/integrations/e2e/grpc');

module.exports = {
  ...e2e,
  published: ['rpc.service', 'rpc.method'],
  run: (entry, env) => e2e.run({ env }),
  builders: { '@grpc/grpc-js': (v) => ({ set: { packages: { '@grpc/grpc-js': v, '@grpc/proto-loader': '0.8.1' } } }) },
  notes: {
    '@grpc/grpc-js@1.10.0': 'Server a decorated class',
    '@grpc/grpc-js@1.14.7': 'register, addService, createCall unchanged since 1.9',
  },
};
