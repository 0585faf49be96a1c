'use strict';

// The bullmq integration on every version its range claims, one just outside
// and one whose private name moved (test/versions/describe-versions.js),
// against a real redis-server started here.

const { describeVersions } = require('./describe-versions');
const { startRedis } = require('../js/integrations/redis-server');

const redis = {};
beforeAll(async () => {
  const server = await startRedis();
  Object.assign(redis, { port: server.port, stop: () => server.stop() });
}, 30000);
afterAll(() => redis.stop && redis.stop());

describeVersions('bullmq', { redis });
