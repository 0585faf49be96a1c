'use strict';

// BullMQ in test/versions, against a real redis-server (test/versions/
// suites.js says what a suite holds).

const semver = require('semver');
const e2e = require('../../js/integrations/e2e/bullmq');

module.exports = {
  servers: ['redis'],
  published: ['queue', 'job', 'tenant', 'route'],
  run: (entry, env, { redis, wiring }) => e2e.run({ port: redis.port, mode: 'inline', registered: wiring !== 'by hand', env }),
  served: (result) => e2e.served(result),
  checkpoints: (result) => e2e.checkpoints(result),
  warnings: (result) => e2e.warnings(result),
  // BullMQ 6 takes ioredis as an optional peer a new app installs itself
  // (6.0.0-6.0.9 throw without it; 6.0.10+ load it lazily).
  builders: {
    bullmq: (v) => ({
      set: { packages: { bullmq: v, ...(semver.major(v) >= 6 ? { ioredis: semver.gte(v, '6.0.10') ? '6.0.0' : '5.11.1' } : {}) } },
      ...(semver.major(v) < 5 ? { wirings: ['register'] } : {}),
    }),
  },
  hand: (entry) => [
    entry('bullmq', '5.22.0', 'Queue#addBulk async, add/addBulk traced'),
    entry('bullmq', '5.64.0', 'callProcessJob(job, token, signal)'),
    entry('bullmq', '5.70.0', "ChildProcessor#init's wrapper takes the signal"),
    entry('bullmq', '6.0.10', 'ioredis loaded lazily (6.0.0-6.0.9 throw at load without it)'),
    entry('bullmq', '6.7.0', 'newest 6 with ioredis 6, as a new app installs it; sandboxes in worker threads stop with process.exit() in the thread'),
    entry('bullmq', '6.7.0', 'newest 6 with ioredis 5 (ioredis 6 needs Node.js 20)', { packages: { ioredis: '5.11.1' } }),
  ],
  notes: {
    'bullmq@5.0.0': 'callProcessJob(job, token)',
    'bullmq@4.18.3': 'register only: by hand, processor() and add() use no BullMQ internals',
  },
};
