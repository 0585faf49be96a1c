'use strict';

// The hono integration on every version its range claims, one just outside
// and one whose private name moved (test/versions/describe-versions.js).

const { describeVersions } = require('./describe-versions');

describeVersions('hono');
