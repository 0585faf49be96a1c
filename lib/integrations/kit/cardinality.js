'use strict';

// A cap on the distinct values of each label whose value comes from outside
// the code: a request's headers (CUSTOMLABELS_HEADERS), a GraphQL operation
// name, a mapped span attribute, a Socket.IO event name. A client that
// sends a new value on every request would give the profiler's backend a
// new series per request (Parca and Pyroscope keep one per distinct label
// set); like OpenTelemetry's metrics SDK, whose cardinality limit is 2,000
// per instrument by default, each such label keeps its first
// CUSTOMLABELS_MAX_VALUES distinct values (default 2,000) in the process,
// and any value after them becomes OTHER ('(other)'): the set keeps its
// size, and one warning (CUSTOMLABELS_MAX_VALUES) names the label. Labels
// whose values come from the app's code (route templates, process labels)
// are not capped.
//
// The count is the process's: each thread keeps the values it admitted,
// and every admission takes one from a count shared by all threads (a
// SharedArrayBuffer the main thread hands its workers as environment data;
// loaded by register before the app starts any). A value two threads both
// admit counts twice: the process never shows more than the cap, and may
// show fewer. Labels share SLOTS counts by the hash of their name (two
// labels on one count share its cap).
//
//   capValue(label, value)   value, or OTHER past the cap (value: what the
//                            set will hold, already cut to what readers keep)
//   readMaxValues(text)      { max, problem }: CUSTOMLABELS_MAX_VALUES read
//                            (problem: why it was not taken, or null)

const { warnOnce } = require('../../core/warnings');

const OTHER = '(other)';
const DEFAULT_MAX_VALUES = 2000;

function readMaxValues(text) {
  if (text === undefined || text.trim() === '') return { max: DEFAULT_MAX_VALUES, problem: null };
  const t = text.trim();
  const n = Number(t);
  if (!/^[0-9]+$/.test(t) || !Number.isSafeInteger(n) || n < 1) {
    return { max: DEFAULT_MAX_VALUES, problem: `CUSTOMLABELS_MAX_VALUES: "${text}" is not a whole number of at least 1; the default, ${DEFAULT_MAX_VALUES}, applies` };
  }
  return { max: n, problem: null };
}

const SLOTS = 64;
const SHARED = 'customlabels.max-values';

// The process's counts: the main thread's, inherited by the workers it
// starts after this module loaded.
function sharedCounts() {
  const { getEnvironmentData, setEnvironmentData } = require('node:worker_threads');
  let buffer = typeof getEnvironmentData === 'function' ? getEnvironmentData(SHARED) : undefined;
  if (!(buffer instanceof SharedArrayBuffer) || buffer.byteLength !== SLOTS * 4) {
    buffer = new SharedArrayBuffer(SLOTS * 4);
    if (typeof setEnvironmentData === 'function') setEnvironmentData(SHARED, buffer);
  }
  return new Int32Array(buffer);
}
const counts = sharedCounts();

function slotOf(label) {
  let h = 0;
  for (let i = 0; i < label.length; i++) h = (Math.imul(h, 31) + label.charCodeAt(i)) | 0;
  return (h >>> 0) % SLOTS;
}

// One more value of `slot` where the cap allows it.
function admit(slot, cap) {
  for (;;) {
    const n = Atomics.load(counts, slot);
    if (n >= cap) return false;
    if (Atomics.compareExchange(counts, slot, n, n + 1) === n) return true;
  }
}

let max; // read at first use (register reports a problem with it at start)
const seen = new Map(); // label -> { slot, values: Set of the values admitted here }

function capValue(label, value) {
  let kept = seen.get(label);
  if (kept === undefined) {
    kept = { slot: slotOf(label), values: new Set() };
    seen.set(label, kept);
  }
  if (kept.values.has(value)) return value;
  max ??= readMaxValues(process.env.CUSTOMLABELS_MAX_VALUES).max;
  if (admit(kept.slot, max)) {
    kept.values.add(value);
    return value;
  }
  warnOnce(
    `max-values:${label}`,
    `customlabels: label "${label}" took ${max} distinct values from outside the code (CUSTOMLABELS_MAX_VALUES); its other values are "${OTHER}" from now on`,
    'CUSTOMLABELS_MAX_VALUES',
  );
  return OTHER;
}

module.exports = { capValue, readMaxValues, OTHER, DEFAULT_MAX_VALUES };
