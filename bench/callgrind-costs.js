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
// A function is GC or compiling by its name (GC, COMPILE below), and
// otherwise by who calls it: a function no name marks (a root visitor, a
// hash-table probe, memcpy) takes the share of GC and of compiling of its
// callers, weighted by what each call cost, so what the collector calls is
// counted as GC however it is named, and a helper both the collector and a
// request call is split between them.

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

// { total, self: Map name -> instructions, parts: Map name -> { gc,
// compile } } of a callgrind dump: each function's own instructions and
// how many of them are GC's and compiling's (see the top); names of
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
  const nameOf = (raw) => {
    const address = /^0x([0-9a-f]+)/.exec(raw);
    return address === null ? raw : (nameAt(ranges, parseInt(address[1], 16)) ?? 'generated code, unnamed');
  };
  const byFn = new Map(); // raw name -> own instructions
  const callers = new Map(); // raw callee -> Map raw caller -> inclusive instructions of its calls
  let fn = null;
  let callee = null; // the next cost line is a call's (inclusive) to callee, not fn's own
  for (const line of fs.readFileSync(dumpFile, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) {
      fn = resolve(line.slice(3));
      callee = null;
    } else if (line.startsWith('cfn=')) {
      callee = resolve(line.slice(4));
    } else if (/^[+\-*0-9]/.test(line)) {
      const parts = line.trim().split(/\s+/);
      if (parts.length < 2) continue;
      const n = Number(parts[parts.length - 1]);
      if (callee !== null) {
        if (!callers.has(callee)) callers.set(callee, new Map());
        const from = callers.get(callee);
        from.set(fn, (from.get(fn) ?? 0) + n);
        callee = null;
        continue;
      }
      byFn.set(fn, (byFn.get(fn) ?? 0) + n);
    }
  }
  const shares = sharesByCaller(byFn, callers, nameOf);
  // (By name: several pieces of generated code may have one.)
  const self = new Map();
  const parts = new Map();
  let total = 0;
  for (const [raw, n] of byFn) {
    const name = nameOf(raw);
    self.set(name, (self.get(name) ?? 0) + n);
    const share = shares.get(raw);
    const part = parts.get(name) ?? { gc: 0, compile: 0 };
    part.gc += n * share.gc;
    part.compile += n * share.compile;
    parts.set(name, part);
    total += n;
  }
  return { total, self, parts };
}

// Map raw name -> { gc, compile }: 1 for a function its name marks, else
// its callers' shares weighted by their calls' inclusive instructions
// (none for a function nothing in the dump called). Functions that call
// each other (a cycle: recursion, callgrind's 'N copies) are taken
// together, by the calls that come into the cycle from outside it (or from
// a member its name marks): their calls among themselves say nothing of
// who asked for the work.
function sharesByCaller(byFn, callers, nameOf) {
  const all = new Set([...byFn.keys(), ...callers.keys()]);
  for (const from of callers.values()) for (const caller of from.keys()) all.add(caller);
  const shares = new Map();
  const fixed = new Set();
  for (const raw of all) {
    const name = nameOf(raw);
    const kind = name.startsWith('JS:') ? 'js' : kindByName(name);
    shares.set(raw, { gc: kind === 'gc' ? 1 : 0, compile: kind === 'compile' ? 1 : 0 });
    if (kind !== null) fixed.add(raw);
  }
  const callees = new Map([...all].map((raw) => [raw, []]));
  for (const [callee, from] of callers) for (const caller of from.keys()) callees.get(caller).push(callee);
  // Callers' cycles before their callees' (Tarjan's order, reversed).
  for (const members of cyclesOf(all, callees).reverse()) {
    const inside = new Set(members);
    const known = (caller) => !inside.has(caller) || fixed.has(caller);
    const weigh = (raws) => {
      let weight = 0;
      let gc = 0;
      let compile = 0;
      for (const raw of raws) {
        for (const [caller, n] of callers.get(raw) ?? []) {
          if (!known(caller)) continue;
          const s = shares.get(caller);
          weight += n;
          gc += n * s.gc;
          compile += n * s.compile;
        }
      }
      return weight === 0 ? null : { gc: gc / weight, compile: compile / weight };
    };
    const whole = weigh(members.filter((raw) => !fixed.has(raw)));
    for (const raw of members) {
      if (fixed.has(raw)) continue;
      const share = weigh([raw]) ?? whole;
      if (share !== null) shares.set(raw, share);
    }
  }
  return shares;
}

// The strongly connected components of the call graph (Tarjan's, without
// recursion), each a list of raw names, callees' before their callers'.
function cyclesOf(nodes, callees) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const out = [];
  let next = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work = [[root, 0]];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const [v, i] = top;
      const edges = callees.get(v);
      if (i < edges.length) {
        top[1] += 1;
        const w = edges[i];
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) {
          low.set(v, Math.min(low.get(v), index.get(w)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(v)));
      }
      if (low.get(v) === index.get(v)) {
        const members = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          members.push(w);
        } while (w !== v);
        out.push(members);
      }
    }
  }
  return out;
}

// 'gc' or 'compile' where a function's name says so, else null.
const kindByName = (name) => (GC.test(name) ? 'gc' : COMPILE.test(name) ? 'compile' : null);

// The kind of a function's row by its name alone (see the top); `libPath`:
// customlabels' lib/ directory, as the perf map names its scripts.
function kindOf(name, libPath) {
  if (name.startsWith('JS:') && name.includes(libPath)) return 'customlabels';
  return kindByName(name) ?? 'rest';
}

// { total, gc, compile, customlabels, rest, customlabelsFns, restFns } of
// a dump, each per `requests`; the two Fns: { name: n } of customlabels'
// functions and of the rest's (a function's part that is not GC's or
// compiling's).
function costsPerRequest(dumpFile, perfMap, libPath, requests) {
  const { total, self, parts } = selfCosts(dumpFile, perfMap);
  const out = { total: total / requests, gc: 0, compile: 0, customlabels: 0, rest: 0, customlabelsFns: {}, restFns: {} };
  for (const [name, n] of self) {
    // (A JavaScript function's name without the tier V8 marks it with, so
    // that its rows of each tier add up.)
    const short = name.replace(/^JS:[*~^+]?'?/, 'JS:').replace(libPath, 'lib/');
    if (kindOf(name, libPath) === 'customlabels') {
      out.customlabels += n / requests;
      out.customlabelsFns[short.slice(3)] = (out.customlabelsFns[short.slice(3)] ?? 0) + n / requests;
      continue;
    }
    const { gc, compile } = parts.get(name);
    out.gc += gc / requests;
    out.compile += compile / requests;
    const rest = (n - gc - compile) / requests;
    out.rest += rest;
    if (rest > 0) out.restFns[short] = (out.restFns[short] ?? 0) + rest;
  }
  return out;
}

module.exports = { selfCosts, costsPerRequest, kindOf };
