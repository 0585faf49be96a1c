'use strict';

// The hook-free Node.js contract (src/core/node_context.h, lib/core/node-context.js)
// on the Node.js running Jest: published where AsyncLocalStorage runs on
// AsyncContextFrame (24+, 22 with --experimental-async-context-frame), with
// the walk readers do finding each continuation's set; elsewhere not
// published, with hooks kept on and a reason. Which applies is known to the
// test from the Node.js version and flags; the addon finds it out by itself.

const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { runNode, root, testIf } = require('./helpers');

const major = Number(process.versions.node.split('.')[0]);
const acfByDefault = major >= 24;
const acfWithFlag = major >= 22;
const fixture = path.join(__dirname, 'fixtures', 'node-walk.js');

// Runs the walk fixture; returns its checkpoint lines and its summary.
function runWalk({ env = {}, args = [] } = {}) {
  const r = spawnSync(process.execPath, [...args, '--expose-gc', fixture, '--gc'], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120000,
  });
  const lines = r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return { r, checkpoints: lines.filter((l) => l.name), done: lines.find((l) => l.done), worker: lines.find((l) => l.worker), errors: lines.filter((l) => l.error) };
}

function expectEveryCheckpoint(run, { tls, published = true }) {
  expect(run.errors).toEqual([]);
  expect(run.r.status).toBe(0);
  // The scenario's main thread and worker both reached every checkpoint.
  expect(run.checkpoints.length).toBe(86);
  for (const c of run.checkpoints) {
    if (!published) {
      // Nothing to walk: labels go through the TLS pointer alone.
      expect({ name: c.name, walk: c.walk, status: c.status, tls: c.tls }).toEqual({ name: c.name, walk: null, status: 'unpublished', tls: c.expect });
      continue;
    }
    // The walk (raw memory, as a reader reads it) lands on exactly the set
    // the continuation runs under, or on no set outside any scope.
    expect({ name: c.name, walk: c.walk }).toEqual({ name: c.name, walk: c.expect });
    expect({ name: c.name, status: c.status }).toEqual({ name: c.name, status: c.expect === null ? expect.stringMatching(/^(no-frame|detached|not-in-frame)$/) : 'found' });
    expect({ name: c.name, tls: c.tls }).toEqual({ name: c.name, tls: tls ? c.expect : null });
  }
}

const modes = [
  ...(acfByDefault ? [['hooks off', { CUSTOMLABELS_HOOKS: '0' }, []], ['hooks on', {}, []]] : []),
  ...(major === 22 ? [['hooks off, --experimental-async-context-frame', { CUSTOMLABELS_HOOKS: '0' }, ['--experimental-async-context-frame']]] : []),
];

// Without AsyncContextFrame (Node.js 18, 20; 22 without the flag) the same
// scenario, asked to run without hooks, keeps them and publishes no walk.
if (!acfByDefault) {
  test('without AsyncContextFrame, CUSTOMLABELS_HOOKS=0 keeps hooks: every continuation\'s set through the TLS pointer, nothing to walk', () => {
    const run = runWalk({ env: { CUSTOMLABELS_HOOKS: '0' } });
    expectEveryCheckpoint(run, { tls: true, published: false });
    expect(run.done.strategy).toMatchObject({ hooks: true, nodeContext: 'unavailable', schema: 'tlsdesc_v1_dev' });
    expect(run.done.strategy.hooksReason).toMatch(/^hooks stay on: /);
  });
}

(modes.length > 0 ? describe.each(modes) : () => () => {})('where AsyncLocalStorage runs on AsyncContextFrame (%s)', (label, env, args) => {
  const hooksOff = env.CUSTOMLABELS_HOOKS === '0';
  let run;
  beforeAll(() => {
    run = runWalk({ env, args });
  });

  test('the walk finds every continuation\'s set: awaits, timers, I/O, events, nested scopes, 100 interleaved requests, a worker, under forced full and young GCs', () => {
    expectEveryCheckpoint(run, { tls: !hooksOff });
  });

  test('strategy() says which mechanism publishes, and the process context schema follows it', () => {
    const s = run.done.strategy;
    expect(s).toMatchObject({ hooks: !hooksOff, nodeContext: 'published', nodeContextReason: null, threadContext: 'published' });
    expect(s.schema).toBe(hooksOff ? 'nodejs_v1_dev' : 'tlsdesc_v1_dev');
    expect(s.publish).toBe(hooksOff ? 'none' : 'typed-array');
    expect(s.v8Unit).toMatch(new RegExp(`customlabels-v8-abi${process.versions.modules}\\.node$`));
    // Field 1 directly follows field 0 in every wrapper.
    expect(s.nodeLayout).toEqual({
      taggedSize: 8,
      jsMapTableOffset: 24,
      orderedHashMapHeaderSize: 16,
      labelSetSlotOffset: s.nodeLayout.recordSlotOffset - 8,
      recordSlotOffset: major >= 24 ? 40 : 32,
    });
  });

  test('each thread publishes its own discovery struct, gate last', () => {
    const main = run.done.discovery;
    const worker = run.worker.discovery;
    for (const d of [main, worker]) {
      expect(BigInt(d.cpedSlot)).not.toBe(0n);
      expect(BigInt(d.alsHandle)).not.toBe(0n);
      expect(d.recordSlotOffset).toBe(run.done.strategy.nodeLayout.recordSlotOffset);
      // The tagged `undefined`: a heap object pointer.
      expect(BigInt(d.undefinedValue) & 1n).toBe(1n);
    }
    expect(worker.cpedSlot).not.toBe(main.cpedSlot);
    expect(worker.alsHandle).not.toBe(main.alsHandle);
    expect(run.worker.strategy.hooks).toBe(!hooksOff);
  });
});

describe('the discovery struct as readers read it', () => {
  test(acfByDefault ? 'raw TLS words: otel_thread_ctx_nodejs_v1 and the Parca pair agree with what was probed; 0 before the first scope' : 'raw TLS words: the gates stay 0 where nothing is published', async () => {
    const r = await runNode(
      `const cl = require('.');
       const b = require('./build/Release/customlabels.node');
       const word = (sym, off = 0n) => b.testing.peekWord(b.testing.tlsInfo(sym).variableAddress + off);
       const before = [word('otel_thread_ctx_nodejs_v1'), word('custom_labels_als_handle')];
       const zero = (v) => v === 0n;
       cl.withLabels({ a: '1' }, () => {});
       const s = cl.strategy();
       const d = b.testing.nodeDiscovery();
       const w = (off) => word('otel_thread_ctx_nodejs_v1', off);
       const hashWord = word('custom_labels_als_identity_hash');
       console.log(JSON.stringify({
         before: before.map(String),
         gateClosed: zero(w(0n)),
         cped: w(0n) === d.cpedSlot, handle: w(8n) === d.alsHandle,
         hash: Number(BigInt.asIntN(32, w(16n) & 0xffffffffn)) === d.alsIdentityHash,
         recordSlot: Number((w(16n) >> 32n) & 0xffn) === s.nodeLayout?.recordSlotOffset,
         reserved: (w(16n) >> 40n) === 0n, undefinedAddr: w(24n) === d.undefinedValue,
         parcaHandle: word('custom_labels_als_handle') === d.alsHandle,
         parcaHash: Number(BigInt.asIntN(32, hashWord & 0xffffffffn)) === d.alsIdentityHash,
         staticTls: ['otel_thread_ctx_nodejs_v1', 'custom_labels_als_handle', 'custom_labels_als_identity_hash'].map((n) => b.testing.tlsInfo(n).staticTls),
       }));`,
      { env: { CUSTOMLABELS_HOOKS: '0' } },
    );
    expect(r.stderr).toBe('');
    if (!acfByDefault) {
      // Nothing published: the struct and the Parca handle read zero, so
      // the gate keeps every reader out.
      expect(JSON.parse(r.stdout)).toMatchObject({ before: ['0', '0'], gateClosed: true, parcaHandle: true, staticTls: [true, true, true] });
      return;
    }
    expect(JSON.parse(r.stdout)).toEqual({
      before: ['0', '0'],
      gateClosed: false,
      cped: true,
      handle: true,
      hash: true,
      recordSlot: true,
      reserved: true,
      undefinedAddr: true,
      parcaHandle: true,
      parcaHash: true,
      staticTls: [true, true, true],
    });
  });
});

describe('hooks off', () => {
  // Counts the hooks anything installs, from before customlabels loads.
  const counting = `
    const ah = require('node:async_hooks'); const v8 = require('node:v8');
    const counts = { asyncHooks: 0, promiseHooks: 0 };
    const createHook = ah.createHook; ah.createHook = (...a) => (counts.asyncHooks++, createHook(...a));
    const ph = v8.promiseHooks.createHook; v8.promiseHooks.createHook = (...a) => (counts.promiseHooks++, ph(...a));
    const cl = require('.');
    (async () => {
      for (let i = 0; i < 3; i++) await cl.withLabels({ i: String(i) }, async () => { await null; await new Promise((r) => setTimeout(r, 1)); });
      console.log(JSON.stringify({ counts, hooks: cl.strategy().hooks, reason: cl.strategy().hooksReason }));
    })();`;

  test(acfByDefault ? 'installs no async hook and no promise hook' : 'cannot apply without AsyncContextFrame: hooks stay on and strategy() says why', async () => {
    const r = await runNode(counting, { env: { CUSTOMLABELS_HOOKS: '0' } });
    const out = JSON.parse(r.stdout);
    if (acfByDefault) {
      expect(out).toEqual({ counts: { asyncHooks: 0, promiseHooks: 0 }, hooks: false, reason: null });
    } else {
      expect(out.hooks).toBe(true);
      expect(out.counts.asyncHooks).toBeGreaterThan(0);
      expect(out.reason).toMatch(
        major >= 22 ? /^hooks stay on: AsyncLocalStorage is not backed by AsyncContextFrame/ : /^hooks stay on: no V8 unit for this Node\.js ABI/,
      );
    }
  });

  test('with hooks on (the default) the same code installs its hooks', async () => {
    const r = await runNode(counting);
    const out = JSON.parse(r.stdout);
    expect(out.hooks).toBe(true);
    expect(out.counts.asyncHooks).toBeGreaterThan(0);
  });

  test('configure({ hooks: false }) before the first scope does what CUSTOMLABELS_HOOKS=0 does, and workers follow the main thread', async () => {
    const r = await runNode(`
      const cl = require('.');
      const { Worker } = require('node:worker_threads');
      cl.configure({ hooks: false });
      cl.withLabels({ a: '1' }, () => {});
      const src = 'const cl = require(' + JSON.stringify(process.cwd()) + '); cl.withLabels({ b: 2 }, () => {});' +
        "require('node:worker_threads').parentPort.postMessage(cl.strategy().hooks)";
      const w = new Worker(src, { eval: true });
      w.once('message', (workerHooks) => console.log(JSON.stringify({ main: cl.strategy().hooks, worker: workerHooks, schema: cl.strategy().schema })));`);
    expect(JSON.parse(r.stdout)).toEqual(
      acfByDefault ? { main: false, worker: false, schema: 'nodejs_v1_dev' } : { main: true, worker: true, schema: 'tlsdesc_v1_dev' },
    );
  });

  test('CUSTOMLABELS_NODE_CONTEXT=0 keeps the V8 unit out: hooks stay on, and strategy() says why', async () => {
    const r = await runNode(`const cl = require('.'); cl.withLabels({ a: '1' }, () => {}); console.log(JSON.stringify(cl.strategy()));`, {
      env: { CUSTOMLABELS_HOOKS: '0', CUSTOMLABELS_NODE_CONTEXT: '0' },
    });
    expect(JSON.parse(r.stdout)).toMatchObject({ hooks: true, nodeContext: 'unavailable', hooksReason: 'hooks stay on: CUSTOMLABELS_NODE_CONTEXT is off', schema: 'tlsdesc_v1_dev', v8Unit: null });
  });

  // An addon whose builder table this unit does not speak (another copy's,
  // another version's) must not stop labels: hooks stay on, the TLS pointer
  // carries them, and strategy() says why. (Below Node.js 22 no unit loads at
  // all, which must end the same way.)
  test('an addon lending no builder the V8 unit speaks keeps hooks on and labels working through the TLS pointer', async () => {
    const r = await runNode(
      `const { createInstance } = require('./lib/core/instance');
      const binding = require('./build/Release/customlabels.node');
      // The addon's own methods, but a table address the unit must refuse
      // (inside the table, so readable: its first word is not the magic).
      const skewed = Object.create(binding, { nativeBuilder: { value: () => binding.nativeBuilder() + 8n } });
      const cl = createInstance(skewed, { addon: 'skewed' }).api;
      const inside = cl.withLabels({ a: '1' }, () => ({ current: binding.currentLabels(), api: cl.currentLabels() }));
      console.log(JSON.stringify({ inside, after: binding.currentLabels(), strategy: cl.strategy() }));`,
      { env: { CUSTOMLABELS_HOOKS: '0' }, args: acfByDefault || !acfWithFlag ? [] : ['--experimental-async-context-frame'] },
    );
    const out = JSON.parse(r.stdout);
    expect(out.inside).toEqual({ current: { a: '1' }, api: { a: '1' } });
    expect(out.after).toEqual({});
    expect(out.strategy).toMatchObject({ hooks: true, nodeContext: 'unavailable', schema: 'tlsdesc_v1_dev' });
    expect(out.strategy.nodeContextReason).toMatch(
      acfWithFlag ? /^the addon lends no builder this V8 unit speaks \(a copy of customlabels of another version loaded the addon\)$/ : /^no V8 unit for this Node\.js ABI /,
    );
  });

  // Node.js 24+ turns it off with --no-async-context-frame; 22 runs without
  // it unless asked.
  test('AsyncLocalStorage without AsyncContextFrame is detected by the feature test, not assumed from the version', async () => {
    const r = await runNode(`const cl = require('.'); cl.withLabels({ a: '1' }, () => {}); console.log(JSON.stringify(cl.strategy()));`, {
      env: { CUSTOMLABELS_HOOKS: '0' },
      args: acfByDefault ? ['--no-async-context-frame'] : [],
    });
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({ hooks: true, nodeContext: 'unavailable' });
    expect(s.nodeContextReason).toMatch(acfWithFlag ? /^AsyncLocalStorage is not backed by AsyncContextFrame/ : /^no V8 unit for this Node\.js ABI/);
  });
});

describe('the V8 unit', () => {
  // The unit for this Node.js ABI: built for Node 22+ (scripts/build-v8.js),
  // none below.
  const { loadV8Unit } = require('../../lib/core/v8-unit');
  const loaded = loadV8Unit();
  if (!acfWithFlag) {
    test('none loads below Node.js 22, and the reason says why', () => {
      expect(loaded).toMatchObject({ unit: null, reason: expect.stringMatching(/^no V8 unit for this Node\.js ABI /) });
    });
    return;
  }
  test('it makes label sets only with the addon\'s builder, only as sets it has just written, and refuses anything else with a TypeError or RangeError', () => {
    expect(loaded.reason).toBeNull();
    // A fresh load: an environment of its own, nothing borrowed or shaped yet.
    const { loadV8Unit: load } = require('../../lib/core/v8-unit');
    const { unit } = load();
    const binding = require('../../build/Release/customlabels.node');
    const { Encoder } = require('../../lib/core/encoder');
    const { readLabels } = require('../../lib/core/labels');
    const { FIELDS } = require('../../lib/core/label-set');
    const { DID_NOT_FIT } = require('../../lib/core/protocol');
    const encoder = new Encoder(undefined, false);
    const n = encoder.encode(readLabels({ a: '1', b: '2' }));
    const slab = new ArrayBuffer(4096);
    expect(() => unit.makeSet(null, 0, encoder.scratch, n, slab, 0)).toThrow(/^makeSet\(\) comes after useBuilder\(\) and shapeSets\(\)$/);

    expect(() => unit.useBuilder(42)).toThrow(/^useBuilder\(\) takes the address binding\.nativeBuilder\(\) returns$/);
    expect(unit.useBuilder(0n)).toBe(false);
    expect(unit.useBuilder(2n ** 64n)).toBe(false); // not a 64-bit address
    expect(unit.useBuilder(binding.nativeBuilder() + 4n)).toBe(false); // misaligned
    expect(unit.useBuilder(binding.nativeBuilder() + 8n)).toBe(false); // readable, but not the magic
    expect(unit.useBuilder(binding.nativeBuilder())).toBe(true);

    expect(() => unit.shapeSets('id')).toThrow(/^shapeSets\(\) takes an array of field names$/);
    expect(() => unit.shapeSets(['id', 7])).toThrow(/^shapeSets\(\) takes an array of field names$/);
    const LabelSet = unit.shapeSets(FIELDS);
    expect(() => unit.shapeSets(FIELDS)).toThrow(/^shapeSets\(\) is called once per thread$/);
    expect(() => new LabelSet()).toThrow(/^label sets are made by withLabels\(\), not constructed$/);
    expect(() => LabelSet()).toThrow(/^label sets are made by withLabels\(\), not constructed$/);

    const made = unit.makeSet(null, 0, encoder.scratch, n, slab, 0);
    expect(made).toBeInstanceOf(LabelSet);
    expect(Object.keys(made)).toEqual([...FIELDS]);
    expect(FIELDS.every((f) => made[f] === undefined)).toBe(true);
    // lib/ fills exactly the declared fields, so every set keeps one shape,
    // and a plain set (TLS-only threads) has the same ones.
    const { initSet, LabelSet: PlainSet } = require('../../lib/core/label-set');
    expect(Object.keys(initSet(made, slab, 0, undefined, undefined))).toEqual([...FIELDS]);
    expect(Object.keys(new PlainSet(slab, 0, undefined, undefined))).toEqual([...FIELDS]);
    expect(encoder.wroteSet()).toBe(true);
    expect(encoder.address()).toBe(binding.testing.peekWord(encoder.address() + 24n)); // the set's own address
    expect(binding.labelsOf(slab, 0)).toEqual({ a: '1', b: '2' });
    // Merged over that set as its parent, at the next free offset.
    const next = encoder.nextOffset();
    const m = encoder.encode(readLabels({ c: '3' }));
    expect(unit.makeSet(slab, 0, encoder.scratch, m, slab, next)).toBeInstanceOf(LabelSet);
    expect(binding.labelsOf(slab, next)).toEqual({ a: '1', b: '2', c: '3' });

    // Nothing written: no object.
    expect(unit.makeSet(null, 0, encoder.scratch, encoder.encode(readLabels({})), slab, 0)).toBeUndefined();
    expect(encoder.wroteSet()).toBe(false);
    expect(unit.makeSet(null, 0, encoder.scratch, encoder.encode(readLabels({ a: '1' })), new ArrayBuffer(8), 0)).toBeUndefined();
    expect(encoder.nextOffset()).toBe(DID_NOT_FIT);

    // Bad arguments and bad inputs: the errors build() gives, never a set.
    const k = encoder.encode(readLabels({ a: '1' }));
    const takes = /^makeSet\(\) takes \(ArrayBuffer \| null, offset, ArrayBuffer, count, ArrayBuffer, offset\)$/;
    expect(() => unit.makeSet(null, 0, encoder.scratch, k, new Uint8Array(64), 0)).toThrow(takes);
    expect(() => unit.makeSet(null, -8, encoder.scratch, k, slab, 0)).toThrow(takes);
    expect(() => unit.makeSet(null, 0, encoder.scratch, k, slab)).toThrow(takes);
    const junk = new ArrayBuffer(256);
    new Uint8Array(junk).fill(0x41);
    // (Errors of the unit's realm, not Jest's: named, not instanceof.)
    const thrown = (f) => {
      try {
        f();
      } catch (err) {
        return `${err.name}: ${err.message}`;
      }
      return 'nothing';
    };
    expect(thrown(() => unit.makeSet(junk, 0, encoder.scratch, k, slab, 1024))).toBe('TypeError: not a customlabels label set');
    expect(thrown(() => unit.makeSet(null, 0, encoder.scratch, 0x7fffffff, slab, 0))).toBe('RangeError: scratch too small');
    const badSlab = 'RangeError: slab offset misaligned or overlapping its inputs';
    expect(thrown(() => unit.makeSet(null, 0, encoder.scratch, k, slab, 12))).toBe(badSlab);
    expect(thrown(() => unit.makeSet(null, 0, encoder.scratch, k, encoder.scratch, 1024))).toBe(badSlab);
    expect(thrown(() => unit.makeSet(null, 0, encoder.scratch, k, new Uint8Array(64), 0))).toMatch(/^TypeError: makeSet/);
  });
});

describe('configure()', () => {
  test('bad options are TypeErrors with a stable code; a change after the first scope is refused, the same value is not', async () => {
    const r = await runNode(`
      const cl = require('.');
      const codes = [];
      for (const bad of [null, 'x', { hooks: 'no' }, { hooks: 1 }]) { try { cl.configure(bad); codes.push('none'); } catch (e) { codes.push(e.code + ':' + (e instanceof TypeError)); } }
      cl.withLabels({ a: '1' }, () => {});
      const hooks = cl.strategy().hooks;
      let late; try { cl.configure({ hooks: !hooks }); late = 'none'; } catch (e) { late = e.code; }
      cl.configure({});
      console.log(JSON.stringify({ codes, late }));`);
    expect(JSON.parse(r.stdout)).toEqual({
      codes: Array(4).fill('ERR_CUSTOMLABELS_INVALID_OPTIONS:true'),
      late: 'ERR_CUSTOMLABELS_CONFIGURED_LATE',
    });
  });
});

describe('an independent walk: gdb', () => {
  const haveGdb = spawnSync('gdb', ['--version']).status === 0;
  // gdb follows the walk with its own expressions from the TLS symbol of the
  // stopped main thread (libthread_db resolves it), nothing of ours involved.
  const script = [
    'set debuginfod enabled off',
    'set $s = (unsigned long *)&otel_thread_ctx_nodejs_v1',
    'printf "gate %lx\\n", $s[0]',
    'if $s[0] != 0',
    '  set $frame = *(unsigned long *)$s[0]',
    '  set $table = *(unsigned long *)($frame - 1 + 24)',
    '  set $w = $table - 1 + 16',
    '  set $nb = *(long *)($w + 16) >> 32',
    '  set $key = *(unsigned long *)$s[1]',
    '  set $hash = *(int *)&$s[2]',
    '  set $e = *(long *)($w + 8 * (3 + ($hash & ($nb - 1)))) >> 32',
    '  set $steps = 0',
    '  while $e >= 0 && $steps < 64 && *(unsigned long *)($w + 8 * (3 + $nb + 3 * $e)) != $key',
    '    set $e = *(long *)($w + 8 * (3 + $nb + 3 * $e + 2)) >> 32',
    '    set $steps = $steps + 1',
    '  end',
    '  set $value = *(unsigned long *)($w + 8 * (3 + $nb + 3 * $e + 1))',
    '  set $slot = ((unsigned char *)$s)[20]',
    '  set $set = *(unsigned long *)($value - 1 + $slot - 8)',
    '  printf "set %lx count %lu record %lx\\n", $set, *(unsigned long *)($set + 8), *(unsigned long *)($value - 1 + $slot)',
    // The ABI's own path: storage, then the first label's key.buf.
    '  printf "key %s\\n", (char *)*(unsigned long *)(*(unsigned long *)$set + 8)',
    'end',
  ].join('\n');

  const target = `
    const cl = require('.');
    const b = require('./build/Release/customlabels.node');
    cl.withLabels({ gdb: 'walk', second: 'label' }, () => {
      const s = cl.strategy();
      const r = s.nodeContext === 'published' ? b.walkNodeContext(b.testing.nodeDiscovery(), s.nodeLayout) : null;
      console.log(JSON.stringify({ set: r && r.labelSet.toString(16), record: r && r.record.toString(16) }));
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20000);
    });`;

  testIf(haveGdb, 'gdb is not installed')(acfByDefault ? 'gdb lands on the same set and record as the in-process walk' : 'gdb reads the gate closed where nothing is published', async () => {
    const fs = require('node:fs');
    const os = require('node:os');
    const { spawn } = require('node:child_process');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-gdb-')), 'walk.gdb');
    fs.writeFileSync(file, script);
    const child = spawn(process.execPath, ['-e', target], { cwd: root, env: { ...process.env, CUSTOMLABELS_HOOKS: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(JSON.parse(String(d)))));
    const gdb = spawnSync('gdb', ['-p', String(child.pid), '-batch', '-nx', '-x', file], { encoding: 'utf8' });
    child.kill();
    if (!acfByDefault) {
      expect(gdb.stdout).toMatch(/^gate 0$/m);
      return;
    }
    const m = /^set ([0-9a-f]+) count (\d+) record ([0-9a-f]+)$/m.exec(gdb.stdout);
    expect(m).not.toBeNull();
    expect({ set: m[1], count: Number(m[2]), record: m[3] }).toEqual({ set: line.set, count: 2, record: line.record });
    // The first key's bytes and, contiguous after them in the set, the rest.
    expect(gdb.stdout).toMatch(/^key gdbwalksecondlabel/m);
  });
});
