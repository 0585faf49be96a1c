'use strict';

// customlabels/pprof on every @datadog/pprof and Pyroscope SDK version its
// range claims, one just outside and one whose private name moved
// (test/versions/describe-versions.js): the profile each produces, decoded.

const { describeVersions } = require('./describe-versions');

describeVersions('pprof');
