'use strict';

// Warnings the application never sees as errors, each emitted once per key
// and thread: the keys live on the global object, so every copy of the
// package (and every module registry, as Jest makes) on a thread shares them.
const kWarned = Symbol.for('customlabels.warned');

function warnOnce(key, message, code) {
  const warned = (globalThis[kWarned] ??= new Set());
  if (warned.has(key)) return;
  warned.add(key);
  process.emitWarning(message, { code });
}

module.exports = { warnOnce };
