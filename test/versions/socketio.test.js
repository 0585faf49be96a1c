'use strict';

// Socket.IO on every release its ranges claim, those just outside, and
// one copy of a release per private name it relies on, with that name
// moved (test/versions/describe-versions.js). Written by scripts/generate.js;
// do not edit.

const { describeVersions } = require('./describe-versions');

describeVersions('socketio');
