'use strict';

// customlabels' labels on in-process profiles (`customlabels/pprof`): the
// wall profiler of @datadog/pprof, which Grafana Pyroscope's Node.js SDK,
// New Relic's profiler and dd-trace run on.
//
//   require('customlabels/pprof').instrument(require('@datadog/pprof'));
//   // or, for the copy Pyroscope's SDK runs on:
//   require('customlabels/pprof').instrument(require('@pyroscope/nodejs'));
//
// (customlabels/register does this when either loads.) From then on, every
// sample the profiler takes while labelled work runs carries the labels
// current there (withLabels, every integration, customlabels/otel's span
// ids), as pprof labels of the same keys and values, cut to what the Parca
// agent keeps; idle and unlabelled work carry none. The host's own contexts
// and generateLabels keep working, merged with them. How the labels reach
// the profiler depends on how it was started (./profiler.js): strategy()
// says, per profiler this thread follows.

const errors = require('../../core/errors');
const { byHand } = require('../kit/integration');
const { versionOfExports } = require('../kit/versions');
const integration = require('./integration');
const { describeAll } = require('./patch');

const isModule = (v) => v !== null && typeof v === 'object';

// Follows the wall profiler of `profiler`: the @datadog/pprof module, or
// the @pyroscope/nodejs module (the @datadog/pprof copy it runs on).
// Returns whether it is followed (false: a version this release does not
// support, with one warning).
function instrument(profiler) {
  const pkg = isModule(profiler) && isModule(profiler.time) ? '@datadog/pprof' : isModule(profiler) && typeof profiler.init === 'function' && typeof profiler.start === 'function' ? '@pyroscope/nodejs' : null;
  if (pkg === null) throw errors.invalidArgument('instrument(profiler)', 'the @datadog/pprof or @pyroscope/nodejs module', profiler);
  const reach = integration.reach.find((r) => r.package === pkg);
  return integration.apply(reach, profiler, { version: versionOfExports(profiler, pkg), config: byHand() }) === true;
}

// [{ profiler, context, reason }] for each profiler followed on this
// thread: context 'frame' (a context per async context: hooks on or off),
// 'global' (one per thread, switched by the hooks) or 'none' (reason says
// why).
const strategy = () => describeAll();

module.exports = { instrument, strategy };
