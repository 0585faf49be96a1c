'use strict';

// Shares of a V8 CPU profile (a .cpuprofile, as `node --cpu-prof` writes it)
// in a window of time, by what the sampled stack's top frame is:
//   customlabels  code of this package (its lib/), and the native functions
//                 it calls (the addon's, V8's builtins reached from it: a
//                 frame with no script whose caller is customlabels')
//   gc            V8's garbage collector
// Each a fraction of the window's samples on CPU (all but "(idle)": the
// main thread's CPU time; a worker thread has a profile of its own). Used by bench/services.js for
// "register's own share from the profile" (issue #37).
//
//   sharesOf(profile, { fromUs, toUs, libPrefix }) -> { samples, customlabels, gc, top }
//
// top: customlabels' functions by their share, the largest first (at most
// 12): { fn: 'name file:line', share }.
//
// fromUs/toUs are the window on the profile's clock (microseconds of
// CLOCK_MONOTONIC, the clock of process.hrtime(): V8's TimeTicks on Linux);
// libPrefix the file: URL prefix of customlabels' lib/.

function sharesOf(profile, { fromUs, toUs, libPrefix }) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const ours = (n) => n.callFrame.url.startsWith(libPrefix);
  // A frame with no script (a native function, a builtin) belongs to its
  // nearest caller that has one; V8's own nodes ("(program)", "(garbage
  // collector)", "(idle)", "(root)") to nobody.
  const kindCache = new Map();
  const kindOf = (id) => {
    if (kindCache.has(id)) return kindCache.get(id);
    const n = byId.get(id);
    let kind;
    if (n.callFrame.functionName === '(idle)') kind = 'idle';
    else if (n.callFrame.functionName === '(garbage collector)') kind = 'gc';
    else if (n.callFrame.functionName.startsWith('(')) kind = 'other';
    else if (n.callFrame.url !== '') kind = ours(n) ? 'customlabels' : 'other';
    else kind = parentOf.has(id) && kindOf(parentOf.get(id)) === 'customlabels' ? 'customlabels' : 'other';
    kindCache.set(id, kind);
    return kind;
  };
  const counts = { customlabels: 0, gc: 0, other: 0, idle: 0 };
  const ownFn = new Map(); // 'name file:line' -> samples
  // The function a customlabels sample is charged to: its own frame, or a
  // native frame's nearest scripted caller.
  const nameOf = (id) => {
    let n = byId.get(id);
    while (n.callFrame.url === '' && parentOf.has(n.id)) n = byId.get(parentOf.get(n.id));
    const { functionName, url, lineNumber } = n.callFrame;
    return `${functionName || '(anonymous)'} ${url.slice(libPrefix.length)}:${lineNumber + 1}`;
  };
  let t = profile.startTime;
  let samples = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (t < fromUs || t > toUs) continue;
    const kind = kindOf(profile.samples[i]);
    counts[kind] += 1;
    if (kind === 'customlabels') {
      const fn = nameOf(profile.samples[i]);
      ownFn.set(fn, (ownFn.get(fn) ?? 0) + 1);
    }
    if (kind !== 'idle') samples += 1;
  }
  if (samples === 0) throw new Error(`no profile samples on CPU in the window [${fromUs}, ${toUs}] µs (profile from ${profile.startTime} to ${profile.endTime})`);
  const top = [...ownFn]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([fn, n]) => ({ fn, share: n / samples }));
  return { samples, customlabels: counts.customlabels / samples, gc: counts.gc / samples, top };
}

module.exports = { sharesOf };
