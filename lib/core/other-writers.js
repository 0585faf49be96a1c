'use strict';

// Other writers of the thread-context standards in this process: a native
// module besides customlabels.node that exports otel_thread_ctx_nodejs_v1
// or otel_thread_ctx_v1 (an in-process profiler's may: docs/readers.md
// names them), and more than one OTEP 4719 process context (a tracer may
// publish its own). Readers keep one module per
// symbol and process (opentelemetry-ebpf-profiler's thread-context loader:
// a map keyed by pid, the module attached last) and decode the last
// OTEL_CTX mapping, so which one they use is not customlabels' to decide.
// checkOtherWriters() warns once (CUSTOMLABELS_OTHER_WRITER) where a reader
// may then miss customlabels' labels:
//   - hooks off, and another module exports otel_thread_ctx_nodejs_v1: the
//     Node.js design doc's readers may walk that module's context;
//   - another module exports otel_thread_ctx_v1 (hooks on: OTEP 4947's
//     readers may read that module's record);
//   - two process contexts or more: readers name every thread's attributes
//     with the last one's key map;
//   - another writer published the process context first (customlabels
//     then publishes none).
// `customlabels check <pid> --readers` says which reader uses what.
// Linux only (it reads /proc/self/maps and the modules' ELF files).

const fs = require('node:fs');
const { warnOnce } = require('./warnings');

const NODEJS = 'otel_thread_ctx_nodejs_v1';
const TLS = 'otel_thread_ctx_v1';
const CONTEXT = /(\/memfd:OTEL_CTX|\[anon_shmem:OTEL_CTX\]|\[anon:OTEL_CTX\])/;
const SELF = /(^|\/)(customlabels\.node|libcustomlabels[^/]*\.so)$/;

// The names `file` (an ELF64 little-endian shared object) exports in its
// .dynsym among `wanted`; an empty set for what is not one.
function exportedOf(file, wanted) {
  const found = new Set();
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    const read = (offset, length) => {
      const b = Buffer.alloc(length);
      fs.readSync(fd, b, 0, length, offset);
      return b;
    };
    const h = read(0, 64);
    if (h.readUInt32BE(0) !== 0x7f454c46 || h[4] !== 2 || h[5] !== 1) return found;
    const shoff = Number(h.readBigUInt64LE(0x28));
    const shentsize = h.readUInt16LE(0x3a);
    const shnum = h.readUInt16LE(0x3c);
    if (shoff === 0 || shnum === 0 || shnum > 4096 || shentsize < 64) return found;
    const sections = read(shoff, shnum * shentsize);
    const section = (i) => ({
      type: sections.readUInt32LE(i * shentsize + 4),
      offset: Number(sections.readBigUInt64LE(i * shentsize + 0x18)),
      size: Number(sections.readBigUInt64LE(i * shentsize + 0x20)),
      link: sections.readUInt32LE(i * shentsize + 0x28),
      entsize: Number(sections.readBigUInt64LE(i * shentsize + 0x38)),
    });
    for (let i = 0; i < shnum; i++) {
      const s = section(i);
      if (s.type !== 11 /* SHT_DYNSYM */ || s.link >= shnum || s.entsize < 24 || s.size > 64 * 1024 * 1024) continue;
      const strtab = section(s.link);
      if (strtab.size > 64 * 1024 * 1024) continue;
      const strings = read(strtab.offset, strtab.size);
      const symbols = read(s.offset, s.size);
      for (let at = 0; at + 24 <= symbols.length; at += s.entsize) {
        const name = symbols.readUInt32LE(at);
        const shndx = symbols.readUInt16LE(at + 6);
        if (shndx === 0 || name >= strings.length) continue; // undefined: imported, not exported
        const end = strings.indexOf(0, name);
        const text = strings.toString('latin1', name, end < 0 ? strings.length : end);
        if (wanted.includes(text)) found.add(text);
      }
    }
  } catch {
    // unreadable: not a writer we can tell
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  return found;
}

// { modules: [{ path, symbols }], contexts: N }: the other writers now.
function findOtherWriters() {
  let maps;
  try {
    maps = fs.readFileSync('/proc/self/maps', 'utf8');
  } catch {
    return { modules: [], contexts: 0 };
  }
  const paths = new Set();
  let contexts = 0;
  for (const line of maps.split('\n')) {
    const fields = line.trim().split(/\s+/);
    const file = fields.slice(5).join(' ');
    if (CONTEXT.test(file) && fields[1] !== undefined && fields[1][2] !== 'x') contexts += 1;
    else if (file.endsWith('.node') && !SELF.test(file)) paths.add(file);
  }
  const modules = [];
  for (const path of paths) {
    const symbols = exportedOf(path, [NODEJS, TLS]);
    if (symbols.size > 0) modules.push({ path, symbols: [...symbols].sort() });
  }
  return { modules, contexts };
}

// Warns once where another writer may take a reader from customlabels'
// labels (`hooks`: whether this thread switches; `context`: the state of
// customlabels' process context, 'other-publisher' where another writer
// published one first and customlabels none; `mirror(path)`: where this
// thread published its node context, binding.mirrorNodeContext, which gives
// another module's unclaimed otel_thread_ctx_nodejs_v1 customlabels'
// discovery, so a reader that keeps that module walks customlabels'
// AsyncLocalStorage all the same); returns what it found, each module with
// its `mirror` state where one was asked.
function checkOtherWriters(hooks, context = null, mirror = null) {
  const found = findOtherWriters();
  const problems = [];
  if (context === 'other-publisher') {
    problems.push("another writer published the process context (OTEL_CTX) first, so customlabels publishes none: OpenTelemetry readers decode that one's schema and keys, not customlabels' (OTEP 4719 allows one)");
  }
  for (const module of found.modules) {
    const { path, symbols } = module;
    if (!hooks && symbols.includes(NODEJS)) {
      module.mirror = mirror === null ? 'absent' : mirror(path);
      if (module.mirror === 'claimed') problems.push(`${path} exports ${NODEJS} too, and its own context is in use on this thread (dd-trace's DD_TRACE_OTEL_CTX_ENABLED): a reader that walks V8's continuation data (the OpenTelemetry Node.js design) keeps one such module per process, and through that one reads that writer's records, not customlabels'`);
      else if (module.mirror !== 'mirrored') problems.push(`${path} exports ${NODEJS} too: a reader that walks V8's continuation data (the OpenTelemetry Node.js design) keeps one such module per process, and may walk that one`);
    }
    if (symbols.includes(TLS)) problems.push(`${path} exports ${TLS} too: an OTEP 4947 reader keeps one such module per process, and may read that one`);
  }
  if (found.contexts > 1) problems.push(`the process has ${found.contexts} process contexts (OTEL_CTX): readers decode the last one's keys`);
  if (problems.length > 0) {
    warnOnce('other-writers', `customlabels: ${problems.join('; ')}. A reader may then miss customlabels' labels; \`customlabels check ${process.pid} --readers\` says which reader uses what.`, 'CUSTOMLABELS_OTHER_WRITER');
  }
  return found;
}

// Gives every other module's unclaimed otel_thread_ctx_nodejs_v1 this
// thread's discovery (`mirror(path)`, as above), without a warning: where a
// thread first publishes its node context (workers: their own copies).
function mirrorOtherWriters(mirror) {
  if (process.platform !== 'linux') return [];
  const states = [];
  for (const { path, symbols } of findOtherWriters().modules) {
    if (symbols.includes(NODEJS)) states.push({ path, mirror: mirror(path) });
  }
  return states;
}

// Checks at each of `delays` (ms, timers that keep no process alive) where
// `stateNow()` says a mode was decided ({ hooks, context, mirror }; null: no
// label ran yet, the check waits for the next).
function watchOtherWriters(stateNow, delays = [1000, 10000]) {
  if (process.platform !== 'linux') return;
  for (const delay of delays) {
    setTimeout(() => {
      const state = stateNow();
      if (state !== null) checkOtherWriters(state.hooks, state.context, state.mirror);
    }, delay).unref();
  }
}

module.exports = { checkOtherWriters, findOtherWriters, exportedOf, mirrorOtherWriters, watchOtherWriters };
