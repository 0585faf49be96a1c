'use strict';

// The patch of an @datadog/pprof copy (customlabels/pprof): its `time`
// object's start, stop and context functions, once per copy, whichever copy
// of customlabels asks first (kit/patcher.js). One whose time profiler
// lacks what the patch relies on is left unpatched with one warning. A
// profiler already started is followed from now on.

const fs = require('node:fs');
const path = require('node:path');
const { observers } = require('../../core');
const { Patcher } = require('../kit/patcher');
const { versionOfExports, fileOfExports, warnUnsupported } = require('../kit/versions');
const { attach, attachmentOf, detach } = require('./profiler');
const { hostOf } = require('./contexts');

const PACKAGE = '@datadog/pprof';
const PYROSCOPE = '@pyroscope/nodejs';
const patcher = new Patcher('pprof');
const attached = new Set(); // time objects this copy attached to

// The wall profiler's public functions the patch wraps or calls (the
// private names it relies on are pprof/integration.js's internals).
const FUNCTIONS = ['start', 'stop', 'setContext', 'getContext', 'getState', 'isStarted'];

// Patches the @datadog/pprof module `pprof`, followed on this thread
// (lib/core/observers.js). Returns whether its profiler is followed (false:
// not a module this version knows, with one warning where it lacks what
// this relies on).
function patchPprof(pprof, context) {
  const time = pprof !== null && typeof pprof === 'object' ? pprof.time : undefined;
  if (time === null || typeof time !== 'object') return false;
  const already = attachmentOf(time);
  if (already !== undefined) return !already.left;
  const { integration, version } = context;
  const missing = FUNCTIONS.filter((name) => typeof time[name] !== 'function');
  if (missing.length > 0) {
    warnUnsupported(integration.name, PACKAGE, version, integration.packages[PACKAGE], `its time profiler has no ${missing.join(', ')}`);
    return false;
  }
  if (!integration.guard('time', time, context)) return false;

  const original = {};
  for (const name of [...FUNCTIONS, 'runWithContext', 'stopV2']) if (typeof time[name] === 'function') original[name] = time[name];
  const attachment = attach(time, original, observers, `${PACKAGE} ${version ?? '(version unknown)'}`);
  attached.add(time);

  patcher.wrap(time, 'start', (start) =>
    function (options) {
      const out = start.apply(this, arguments);
      attachment.begin(options === undefined || options === null ? {} : options);
      return out;
    },
  );
  const stopping = (stop) =>
    function (restart, generateLabels, lowCardinalityLabels) {
      if (attachment.context === 'none') return stop.apply(this, arguments);
      const out = stop.call(this, restart, attachment.generateLabels(generateLabels), lowCardinalityLabels);
      if (restart === true) attachment.restarted();
      else attachment.end();
      return out;
    };
  patcher.wrap(time, 'stop', stopping);
  patcher.wrap(time, 'stopV2', stopping);
  patcher.wrap(time, 'setContext', (setContext) =>
    function (value) {
      return attachment.context === 'none' ? setContext.apply(this, arguments) : attachment.setContext(value);
    },
  );
  patcher.wrap(time, 'getContext', (getContext) =>
    function () {
      return hostOf(getContext.apply(this, arguments));
    },
  );
  patcher.wrap(time, 'runWithContext', (runWithContext) =>
    function (value, fn, ...args) {
      return attachment.context === 'frame' ? attachment.runWithContext(value, fn, args) : runWithContext.apply(this, arguments);
    },
  );
  // Started before this: followed from now on (its options unknown).
  if (original.isStarted()) attachment.begin(undefined);
  return true;
}

// The @datadog/pprof module the Pyroscope SDK module `pyroscope` runs on
// (its own dependency, loaded with it), or null.
function pprofOf(pyroscope) {
  const file = fileOfExports(pyroscope);
  if (file === null) return null;
  try {
    return require(require.resolve(PACKAGE, { paths: [fs.realpathSync(path.dirname(file))] }));
  } catch {
    return null;
  }
}

// Follows the profiler the Pyroscope SDK module `pyroscope` runs on (a
// version outside the range is left alone, its profiler too: the reach's
// outside, leavePyroscope). Returns whether it is followed.
function patchPyroscope(pyroscope, { integration, version, config }) {
  const pprof = pprofOf(pyroscope);
  if (pprof === null) {
    warnUnsupported(integration.name, PYROSCOPE, version, integration.packages[PYROSCOPE], `the ${PACKAGE} it runs on was not found beside it`);
    return false;
  }
  const reach = integration.reach.find((r) => r.package === PACKAGE);
  return integration.apply(reach, pprof, { version: versionOfExports(pprof, PACKAGE), config }) === true;
}

// Leaves the profiler of the Pyroscope SDK module `pyroscope`, a version
// this release does not support, alone (followed or not: register follows
// an @datadog/pprof when it loads, before the SDK that loads it is known).
function leavePyroscope(pyroscope, { version }) {
  const attachment = attachmentOf(pprofOf(pyroscope)?.time);
  if (attachment !== undefined) attachment.leave(`${PYROSCOPE} ${version ?? '(version unknown)'} is not supported`);
}

// What each profiler this copy follows does, on this thread.
const describeAll = () => [...attached].map((time) => attachmentOf(time)?.describe()).filter(Boolean);

function unpatchPprof() {
  for (const time of attached) detach(time);
  attached.clear();
  patcher.unwrapAll();
}

module.exports = { patchPprof, patchPyroscope, leavePyroscope, unpatchPprof, describeAll };
