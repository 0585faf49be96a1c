'use strict';

// The instructions a callgrind dump counted, by function and by kind, for
// bench/service-instructions.js. A function's own (self) instructions are
// summed under its name; code V8 generated at run time, which valgrind
// knows by address only, is named from the perf map `node
// --perf-basic-prof` writes (/tmp/perf-<pid>.map: "start size name" per
// piece of code, in hex), so each JavaScript function has its own row
// ("JS:name file:line:column"). Kinds:
//   gc            V8's collector (scavenges, marking, sweeping, compaction,
//                 the write barrier's marking work, and the object moves
//                 --perf-basic-prof has every GC report: Heap::OnMoveEvent)
//   compile       V8's compilers (parsing, bytecode, Sparkplug, Maglev,
//                 TurboFan), which run on the main thread with
//                 --single-threaded
//   customlabels  customlabels' own JavaScript (its lib/ files), as
//                 compiled; what V8 inlined into it counts as its
//   rest          everything else: the app's and Node.js's JavaScript,
//                 V8's builtins and runtime, libuv, the kernel's entry.

const fs = require('node:fs');

// [start, end, name] of each piece of code, sorted by start; the last one
// a range was given to wins (V8 reuses addresses).
function readPerfMap(file) {
  const byStart = new Map();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (m !== null) byStart.set(parseInt(m[1], 16), [parseInt(m[1], 16), parseInt(m[1], 16) + parseInt(m[2], 16), m[3]]);
  }
  return [...byStart.values()].sort((a, b) => a[0] - b[0]);
}

function nameAt(ranges, address) {
  let lo = 0;
  let hi = ranges.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid][0] <= address) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best >= 0 && address < ranges[best][1] ? ranges[best][2] : null;
}

const GC = /Scaveng|heap::base::|RecordWrite|MarkBit|WriteBarrier|NeedsResetDueToFlushedBytecode|RelocIterator|Heap::OnMoveEvent|SizeFromMap|RecordMigratedSlot|StringTableCleaner|FreeList|MarkCompact|Marking|Sweep|Evacuat|RememberedSet|SlotSet|MinorMS|ConcurrentMarking|ObjectVisitor|BodyDescriptor|Heap::(CollectGarbage|PerformGarbageCollection|Scavenge|MarkCompact|IterateRoots)/;
const COMPILE = /v8::internal::compiler::|turboshaft::|maglev::|v8::internal::baseline::|v8::internal::interpreter::|v8::internal::Parser|v8::internal::Scanner|v8::internal::Compiler::|v8::internal::Zone|v8::internal::AstValueFactory|v8::internal::(Optimized|Unoptimized)Compil/;

// { total, self: Map name -> instructions } of a callgrind dump; names of
// generated code from `perfMap` (a file) where given.
function selfCosts(dumpFile, perfMap) {
  const ranges = perfMap === undefined ? [] : readPerfMap(perfMap);
  const names = new Map(); // callgrind's compressed "(id) name"
  const resolve = (token) => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(token);
    if (m === null) return token;
    if (m[2] !== undefined) names.set(m[1], m[2]);
    return names.get(m[1]);
  };
  const byFn = new Map();
  let fn = null;
  let callCost = false; // the next cost line is a call's (inclusive), not fn's own
  for (const line of fs.readFileSync(dumpFile, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) {
      fn = resolve(line.slice(3));
      callCost = false;
    } else if (line.startsWith('cfn=')) {
      resolve(line.slice(4));
    } else if (line.startsWith('calls=')) {
      callCost = true;
    } else if (/^[+\-*0-9]/.test(line)) {
      const parts = line.trim().split(/\s+/);
      if (parts.length < 2) continue;
      if (callCost) {
        callCost = false;
        continue;
      }
      byFn.set(fn, (byFn.get(fn) ?? 0) + Number(parts[parts.length - 1]));
    }
  }
  const self = new Map();
  let total = 0;
  for (const [name, n] of byFn) {
    const address = /^0x([0-9a-f]+)/.exec(name);
    const named = address === null ? name : (nameAt(ranges, parseInt(address[1], 16)) ?? 'generated code, unnamed');
    self.set(named, (self.get(named) ?? 0) + n);
    total += n;
  }
  return { total, self };
}

// The kind of a function's row (see the top); `libPath`: customlabels'
// lib/ directory, as the perf map names its scripts.
function kindOf(name, libPath) {
  if (name.startsWith('JS:') && name.includes(libPath)) return 'customlabels';
  if (GC.test(name)) return 'gc';
  if (COMPILE.test(name)) return 'compile';
  return 'rest';
}

// { total, gc, compile, customlabels, rest, customlabelsFns, restFns } of
// a dump, each per `requests`; the two Fns: { name: n } of customlabels'
// functions and of the rest's.
function costsPerRequest(dumpFile, perfMap, libPath, requests) {
  const { total, self } = selfCosts(dumpFile, perfMap);
  const out = { total: total / requests, gc: 0, compile: 0, customlabels: 0, rest: 0, customlabelsFns: {}, restFns: {} };
  for (const [name, n] of self) {
    const kind = kindOf(name, libPath);
    out[kind] += n / requests;
    // (A JavaScript function's name without the tier V8 marks it with, so
    // that its rows of each tier add up.)
    const short = name.replace(/^JS:[*~^+]?'?/, 'JS:').replace(libPath, 'lib/');
    if (kind === 'customlabels') out.customlabelsFns[short.slice(3)] = (out.customlabelsFns[short.slice(3)] ?? 0) + n / requests;
    else if (kind === 'rest') out.restFns[short] = (out.restFns[short] ?? 0) + n / requests;
  }
  return out;
}

module.exports = { selfCosts, costsPerRequest, kindOf };
