'use strict';

// The otel integration on every API and SDK line its ranges claim, and one
// API just outside (test/versions/describe-versions.js).

const { describeVersions } = require('./describe-versions');

describeVersions('otel');
