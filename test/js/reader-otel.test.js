'use strict';

// The reader reads both: next to the Custom Label ABI v1 labels, each
// thread's OpenTelemetry context record (OTEP 4947, otel_thread_ctx_v1) and
// the process context (OTEP 4719, the OTEL_CTX mapping) whose key map names
// the records' attributes. The target (test/targets/otel_writer.c, built
// here with cc) publishes both through a fake addon named customlabels.node,
// one thread per record shape, well-formed or malformed; the expected output
// is rendered here from what the target says it published.

const { spawn, execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { root, readerPath, inspectBody } = require('./helpers');

const targets = path.join(root, 'test', 'targets');
let dir;
let bin; // { addon, oldAddon, writer }

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-otel-'));
  fs.mkdirSync(path.join(dir, 'old'));
  const dialect = process.arch === 'arm64' ? '-mtls-dialect=desc' : '-mtls-dialect=gnu2';
  bin = {
    addon: path.join(dir, 'customlabels.node'),
    oldAddon: path.join(dir, 'old', 'customlabels.node'),
    writer: path.join(dir, 'otel_writer'),
  };
  const cc = (args) => execFileSync('cc', args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const addon = ['-O1', '-fPIC', '-shared', '-ftls-model=global-dynamic', dialect, '-Wl,-z,now'];
  cc([...addon, '-o', bin.addon, path.join(targets, 'fake_addon.c')]);
  cc([...addon, '-DFAKE_ADDON_NO_OTEL', '-o', bin.oldAddon, path.join(targets, 'fake_addon.c')]);
  cc(['-O1', '-pthread', '-o', bin.writer, path.join(targets, 'otel_writer.c'), '-ldl']);
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// Starts the writer; resolves with { child, shapes: Map(name -> line), context } once ready.
function startWriter(args = [], addon = bin.addon) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin.writer, [addon, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.once('error', reject);
    const shapes = new Map();
    let context = null;
    const lines = readline.createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (line === 'ready') {
        lines.close();
        resolve({ child, shapes, context });
        return;
      }
      const o = JSON.parse(line);
      const fix = (p) => (p === '(nil)' ? '0x0' : p);
      if (o.shape) shapes.set(o.shape, { ...o, record: fix(o.record), set: fix(o.set) });
      else context = o;
    });
    child.once('exit', (code) => reject(new Error(`writer exited with ${code}`)));
  });
}

const stopWriter = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

async function withWriter(args, fn, addon) {
  const w = await startWriter(args, addon);
  try {
    return await fn(w);
  } finally {
    await stopWriter(w.child);
  }
}

function runReader(args) {
  return new Promise((resolve) => {
    execFile(readerPath, args, { encoding: 'utf8', timeout: 30000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

const jsonLines = (stdout) => stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
const hex = (n) => `0x${BigInt(n).toString(16)}`;
const threadsOf = (pid) => fs.readdirSync(`/proc/${pid}/task`).map(Number).sort((a, b) => a - b);

const TRACE = '0102030405060708090a0b0c0d0e0f10';
const TRACE_A1 = 'a1a2a3a4a5a6a7a8a9aaabacadaeafb0';
const SPAN = 'b0b1b2b3b4b5b6b7';
const KEYS = ['http.route', 'user.id', 'tenant'];

// What the reader must show of each shape's record: the otel part, or
// undefined for none. `keyMap` false: the process has no usable key map.
function expectations(shapes, { keyMap = true } = {}) {
  const rec = (name) => shapes.get(name).record;
  const traced = (trace, flags, attributes, problems) => {
    const o = { trace_id: trace, span_id: trace === null ? null : SPAN, trace_flags: flags };
    if (keyMap) {
      o.attributes = attributes;
      if (problems) o.problems = problems;
    } else {
      o.attributes = {};
      // Every index is dropped, once, in order of first occurrence.
      const indexes = Object.keys(attributes).map((k) => KEYS.indexOf(k));
      o.problems = [...(problems || []).filter((p) => !p.startsWith('attribute key index')),
        ...indexes.map((i) => `attribute key index ${i} cannot be resolved: no attribute key map; dropped`)];
      if (o.problems.length === 0) delete o.problems;
    }
    return o;
  };
  const e = {
    traced: { labels: { a: '1' }, otel: traced(TRACE, 1, { 'http.route': '/users/:id', 'user.id': '42' }) },
    repeated: { otel: traced(TRACE_A1, 0, { 'user.id': '7', 'http.route': '/orders' }) },
    'no-trace': { otel: traced(null, 0, { tenant: 'acme' }) },
    invalid: { otel: { error: 'valid is 0, not 1: the record is ignored' } },
    misaligned: { otel: { error: `record pointer ${rec('misaligned')} is misaligned (records are 2-byte aligned)` } },
    unreadable: { otel: { error: `cannot read the thread context record at ${rec('unreadable')}` } },
    'cut-entry': {
      otel: traced(TRACE, 1, { 'http.route': '/ok' },
        ['the entry at byte 5 (key index 1) needs 9 value bytes but attrs_data has 5 left; the rest is ignored']),
    },
    'bad-utf8': { otel: traced(TRACE, 1, { tenant: '\udcff\udcfe' }, ['value of attribute "tenant" is not valid UTF-8']) },
    oversize: {
      otel: traced(TRACE, 1, { 'http.route': 'a'.repeat(255), 'user.id': 'b'.repeat(255), tenant: 'c'.repeat(255) },
        ["attrs_data_size 771 makes the record 799 bytes, over the OTEP's 640-byte recommendation (readers may drop it)"]),
    },
    'attrs-unmapped': { otel: { error: `cannot read the record's 100 attribute bytes at ${hex(BigInt(rec('attrs-unmapped')) + 28n)}` } },
    null: {},
  };
  if (keyMap) {
    e['unknown-key'] = { otel: traced(TRACE, 1, { 'user.id': '9' }, ['attribute key index 5 is outside the attribute key map (3 keys); dropped']) };
  } else {
    e['unknown-key'] = {
      otel: { trace_id: TRACE, span_id: SPAN, trace_flags: 1, attributes: {},
        problems: [5, 1].map((i) => `attribute key index ${i} cannot be resolved: no attribute key map; dropped`) },
    };
  }
  if (!keyMap) {
    // Bad UTF-8 is only noted for attributes that are kept.
    e['bad-utf8'].otel.problems = ['attribute key index 2 cannot be resolved: no attribute key map; dropped'];
  }
  return e;
}

// The JSON line of a thread (an independent rendering of the documented
// shape); the first line also carries the process context (`context`, JSON).
function jsonLine(tid, name, shape, e, context) {
  const o = { tid, name, labels: e.labels ?? null, set: shape.set };
  if (e.otel) o.otel = e.otel.error ? { record: shape.record, error: e.otel.error } : { record: shape.record, ...e.otel };
  const line = JSON.stringify(o);
  return context ? `${line.slice(0, -1)},"process_context":${context}}` : line;
}
const mainLine = (pid, context) => jsonLine(pid, 'otel_writer', { set: '0x0' }, {}, context);

// The text block of a thread.
function textBlock(tid, name, shape, e) {
  const pad = (v, n) => String(v).padEnd(n);
  const lead = `  ${pad(tid, 8)} ${pad(name, 16)} `;
  const indent = ' '.repeat(lead.length);
  const lines = [lead + (e.labels ? Object.entries(e.labels).map(([k, v]) => `${k}=${v}`).join(' ') : '(none)')];
  const text = (s) => s.replace(/[\udc80-\udcff]/g, (c) => `\\x${(c.charCodeAt(0) & 0xff).toString(16)}`);
  const o = e.otel;
  if (o && o.error) {
    lines.push(`${indent}! otel error: ${o.error}${o.error.includes(shape.record) ? '' : ` (record ${shape.record})`}`);
  } else if (o) {
    const attrs = Object.entries(o.attributes).map(([k, v]) => `${k}=${text(v)}`).join(' ') || '(no attributes)';
    const flags = o.trace_flags.toString(16).padStart(2, '0');
    lines.push(`${indent}otel ${o.trace_id ? `trace ${o.trace_id} span ${o.span_id}` : 'no trace,'} flags ${flags}: ${attrs}`);
    for (const p of o.problems || []) lines.push(`${indent}! otel problem: ${p}`);
  }
  return `${lines.join('\n')}\n`;
}

function contextJson(pid, context, { resource, attributes = {}, keys = KEYS, schema = 'tlsdesc_v1_dev', problems } = {}) {
  const c = {
    mapping: '/memfd:OTEL_CTX (deleted)', address: context.context, version: 2,
    published_at: '@@', payload: context.payload, payload_size: context.payload_size,
    schema_version: schema, attribute_key_map: keys,
    resource: resource || { 'service.name': 'otel-writer', 'process.pid': pid }, attributes,
  };
  if (problems) c.problems = problems;
  // published_at is a uint64: written as printed by the writer.
  return JSON.stringify(c).replace('"@@"', String(context.published_at));
}

// The writer published its context in a memfd at the address it printed
// (the precondition of every exact expectation below).
function expectMemfd(pid, context) {
  const maps = fs.readFileSync(`/proc/${pid}/maps`, 'utf8');
  const start = BigInt(context.context).toString(16);
  expect(maps).toMatch(new RegExp(`^${start}-[0-9a-f]+ r[w-]-p .* /memfd:OTEL_CTX \\(deleted\\)$`, 'm'));
}

describe('a process that publishes both contexts', () => {
  let w;
  beforeAll(async () => {
    w = await startWriter();
  }, 60000);
  afterAll(() => w && stopWriter(w.child));

  test('inspect --json: each thread with its otel part, the first line with the process context, exactly', async () => {
    const { child, shapes, context } = w;
    expectMemfd(child.pid, context);
    const r = await runReader(['inspect', String(child.pid), '--json']);
    r.stdout = inspectBody(r.stdout);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    // The main thread comes first, with the process context (and no record: no otel part).
    expect(lines[0]).toBe(mainLine(child.pid, contextJson(child.pid, context)));
    const byTid = new Map(lines.map((l) => [JSON.parse(l).tid, l]));
    expect([...byTid.keys()].sort((a, b) => a - b)).toEqual(threadsOf(child.pid));
    const expected = expectations(shapes);
    expect([...shapes.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [name, e] of Object.entries(expected)) {
      const shape = shapes.get(name);
      expect({ name, line: byTid.get(shape.tid) }).toEqual({ name, line: jsonLine(shape.tid, name, shape, e) });
    }
  }, 60000);

  test('inspect (text): the header names both TLS variables and the process context, then the blocks', async () => {
    const { child, shapes, context } = w;
    const r = await runReader(['inspect', String(child.pid)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const head = new RegExp(`^process ${child.pid}: ${bin.addon} \\(ABI v1, static TLS, thread pointer -\\d+\\)\\n` +
      'otel_thread_ctx_v1: static TLS, thread pointer -\\d+\\n');
    expect(r.stdout).toMatch(head);
    expect(r.stdout).toContain(
      `process context: /memfd:OTEL_CTX (deleted) at ${context.context}: version 2, published at ${context.published_at} ns, schema tlsdesc_v1_dev\n` +
      `  resource: service.name=otel-writer process.pid=${child.pid}\n` +
      '  attribute keys: 0=http.route 1=user.id 2=tenant\n' +
      `  ${String(child.pid).padEnd(8)} otel_writer      (none)\n`);
    for (const [name, e] of Object.entries(expectations(shapes))) {
      const shape = shapes.get(name);
      const block = textBlock(shape.tid, name, shape, e);
      expect({ name, found: r.stdout.includes(block) }).toEqual({ name, found: true });
    }
    const tids = r.stdout.split('\n').filter((l) => /^ {2}\d/.test(l)).map((l) => Number(l.trim().split(/\s+/)[0]));
    expect(tids).toEqual(threadsOf(child.pid));
  }, 60000);

  test('inspect --tid reads one thread: the record and the labels side by side', async () => {
    const { child, shapes, context } = w;
    const shape = shapes.get('traced');
    const r = await runReader(['inspect', String(child.pid), '--tid', String(shape.tid), '--json']);
    r.stdout = inspectBody(r.stdout);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${jsonLine(shape.tid, 'traced', shape, expectations(shapes).traced, contextJson(child.pid, context))}\n`);
  }, 60000);

  test('check: the symbol, its static TLS, the main thread and the process context all pass', async () => {
    const { child, context } = w;
    const r = await runReader(['check', String(child.pid)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const reloc = process.arch === 'arm64' ? 'R_AARCH64_TLSDESC' : 'R_X86_64_TLSDESC';
    const want = [
      '  ok   .dynsym has otel_thread_ctx_v1: global default-visibility TLS symbol of 8 bytes (size 8, TLS, global, default visibility)',
      `  ok   an ${reloc} relocation names otel_thread_ctx_v1`,
      /^ {2}ok {3}the otel_thread_ctx_v1 TLS descriptor resolved to static TLS, thread pointer -?\d+$/,
      "  ok   the main thread's otel_thread_ctx_v1 is readable (NULL: no context)",
      `  ok   a process context mapping: /memfd:OTEL_CTX (deleted) at ${context.context}`,
      `  ok   header: signature OTEL_CTX, version 2, ${context.payload_size}-byte payload, published at ${context.published_at} ns`,
      '  ok   the payload decodes as a ProcessContext (2 resource attributes)',
      '  ok   threadlocal.schema_version is "tlsdesc_v1_dev"',
      '  ok   threadlocal.attribute_key_map is an array of at most 256 distinct non-empty strings (3 keys)',
    ];
    const lines = r.stdout.split('\n');
    for (const line of want) {
      expect({ line: String(line), found: lines.some((l) => (line instanceof RegExp ? line.test(l) : l === line)) })
        .toEqual({ line: String(line), found: true });
    }
    expect(r.stdout).not.toContain('FAIL');
    expect(lines.at(-2)).toBe('the process exposes labels as the Custom Label ABI v1 says, and its OpenTelemetry context as OTEPs 4947 and 4719 say');
  }, 60000);

  test('check of the addon file: otel_thread_ctx_v1 is checked next to the ABI', async () => {
    const r = await runReader(['check', bin.addon]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  ok   .dynsym has otel_thread_ctx_v1: global default-visibility TLS symbol of 8 bytes');
    expect(r.stdout.trim().split('\n').at(-1)).toBe('the file follows the Custom Label ABI v1 and exports otel_thread_ctx_v1 as OTEP 4947 says');
  });
});

describe('malformed process contexts', () => {
  const cases = {
    'bad-signature': { fail: 'the process context is readable and well-formed: the signature is "OTEL_CTY", not "OTEL_CTX"' },
    'bad-version': { fail: 'the process context is readable and well-formed: version 1: this reader reads version 2' },
    'bad-payload': { fail: (c) => `the process context is readable and well-formed: the payload does not decode: ProcessContext: truncated varint at byte ${c.payload_size - 1}` },
    'bad-schema': {
      fail: 'threadlocal.schema_version is "tlsdesc_v1_dev" ("tlsdesc_v2")',
      problems: ['threadlocal.schema_version is "tlsdesc_v2"; readers accept "tlsdesc_v1_dev" or "nodejs_v1_dev"'],
      schema: 'tlsdesc_v2',
    },
    'bad-keys': {
      fail: 'threadlocal.attribute_key_map is an array of at most 256 distinct non-empty strings (1 empty, 1 repeated)',
      problems: ['attribute key map element 1 is an empty string', 'attribute key map element 2 repeats key "http.route"'],
      keys: ['http.route', '', 'http.route'],
    },
  };
  for (const [kind, c] of Object.entries(cases)) {
    test(`${kind}: check fails on it in plain words, inspect shows it`, () =>
      withWriter(['--context', kind], async ({ child, context, shapes }) => {
        expectMemfd(child.pid, context);
        const fail = typeof c.fail === 'function' ? c.fail(context) : c.fail;
        const check = await runReader(['check', String(child.pid)]);
        expect(check.code).toBe(1);
        expect(check.stdout.split('\n').filter((l) => l.startsWith('  FAIL'))).toEqual([`  FAIL ${fail}`]);
        expect(check.stdout.trim().split('\n').at(-1)).toBe('problems found');
        const r = await runReader(['inspect', String(child.pid), '--json']);
        r.stdout = inspectBody(r.stdout);
        expect(r.code).toBe(0);
        const [first, ...threads] = r.stdout.trim().split('\n');
        if (c.problems) {
          expect(first).toBe(mainLine(child.pid, contextJson(child.pid, context, { keys: c.keys, schema: c.schema, problems: c.problems })));
        } else {
          expect(first).toBe(mainLine(child.pid, JSON.stringify(
            { mapping: '/memfd:OTEL_CTX (deleted)', address: context.context, error: fail.replace(/^[^:]*: /, '') })));
          // No key map: the records' attributes are dropped, and said so.
          const traced = shapes.get('traced');
          const line = threads.find((l) => JSON.parse(l).tid === traced.tid);
          expect(line).toBe(jsonLine(traced.tid, 'traced', traced, expectations(shapes, { keyMap: false }).traced));
        }
      }), 60000);
  }

  test('none: check fails (the addon exports otel_thread_ctx_v1), inspect drops attributes and says why', () =>
    withWriter(['--context', 'none'], async ({ child, shapes }) => {
      expect(fs.readFileSync(`/proc/${child.pid}/maps`, 'utf8')).not.toContain('OTEL_CTX');
      const check = await runReader(['check', String(child.pid)]);
      expect(check.code).toBe(1);
      expect(check.stdout.split('\n').filter((l) => l.startsWith('  FAIL'))).toEqual([
        '  FAIL a process context mapping (/memfd:OTEL_CTX, [anon_shmem:OTEL_CTX] or [anon:OTEL_CTX]): none, so thread attributes have no keys',
      ]);
      const r = await runReader(['inspect', String(child.pid), '--json']);
      r.stdout = inspectBody(r.stdout);
      expect(r.code).toBe(0);
      const byTid = new Map(r.stdout.trim().split('\n').map((l) => [JSON.parse(l).tid, l]));
      expect([...byTid.keys()].sort((a, b) => a - b)).toEqual(threadsOf(child.pid));
      expect(r.stdout).not.toContain('process_context');
      for (const [name, e] of Object.entries(expectations(shapes, { keyMap: false }))) {
        const shape = shapes.get(name);
        expect({ name, line: byTid.get(shape.tid) }).toEqual({ name, line: jsonLine(shape.tid, name, shape, e) });
      }
      const text = await runReader(['inspect', String(child.pid)]);
      expect(text.stdout.split('\n')[2]).toBe('process context: none (no OTEL_CTX mapping)');
    }), 60000);
});

describe('an addon from before the thread context (no otel_thread_ctx_v1)', () => {
  test('inspect omits the otel parts; check notes it as information and passes', () =>
    withWriter(['--context', 'none'], async ({ child, shapes }) => {
      const r = await runReader(['inspect', String(child.pid), '--json']);
      r.stdout = inspectBody(r.stdout);
      expect(r.code).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(lines).toHaveLength(threadsOf(child.pid).length);
      for (const l of lines) expect(JSON.parse(l)).not.toHaveProperty('otel');
      const traced = shapes.get('traced');
      expect(lines).toContain(`{"tid":${traced.tid},"name":"traced","labels":{"a":"1"},"set":"${traced.set}"}`);
      const text = await runReader(['inspect', String(child.pid)]);
      expect(text.stdout).not.toMatch(/otel_thread_ctx_v1|^ +(! )?otel |process context/m);
      const check = await runReader(['check', String(child.pid)]);
      expect(check.code).toBe(0);
      expect(check.stdout).toContain('  info otel_thread_ctx_v1 is not exported: an addon without the OpenTelemetry thread context\n');
      expect(check.stdout).toContain('  info no OpenTelemetry process context (no OTEL_CTX mapping)\n');
      expect(check.stdout).not.toContain('FAIL');
      expect(check.stdout.trim().split('\n').at(-1)).toBe('the process exposes labels as the Custom Label ABI v1 says');
      const file = await runReader(['check', bin.oldAddon]);
      expect(file.code).toBe(0);
      expect(file.stdout.trim().split('\n').at(-1)).toBe('the file follows the Custom Label ABI v1');
    }, bin.oldAddon), 60000);

  test('a process context without the thread context is still shown and checked', () =>
    withWriter([], async ({ child, context }) => {
      const r = await runReader(['inspect', String(child.pid), '--json']);
      r.stdout = inspectBody(r.stdout);
      expect(r.stdout.split('\n')[0]).toBe(mainLine(child.pid, contextJson(child.pid, context)));
      const check = await runReader(['check', String(child.pid)]);
      expect(check.code).toBe(0);
      expect(check.stdout).toContain('  ok   threadlocal.schema_version is "tlsdesc_v1_dev"\n');
    }, bin.oldAddon), 60000);
});

describe('a process context updated while it is read', () => {
  test('every read is one publication, never a mix; the reader retried when it caught the writer at work', () =>
    withWriter(['--context', 'updating'], async ({ child }) => {
      const seen = { a: 0, b: 0, retried: 0 };
      for (let i = 0; i < 30; i++) {
        const r = await runReader(['inspect', String(child.pid), '--tid', String(child.pid), '--json']);
        r.stdout = inspectBody(r.stdout);
        expect(r.code).toBe(0);
        const { process_context: c } = JSON.parse(r.stdout);
        expect(c.error).toBeUndefined();
        // Payload a is {writer-a, phase a}, b is {writer-b, phase b}; the
        // writer rewrites one into the other in place, half at a time.
        const phase = c.attributes.phase;
        expect({ phase, service: c.resource['service.name'] }).toEqual({ phase, service: `writer-${phase}` });
        expect(c.attribute_key_map).toEqual(KEYS);
        seen[phase] += 1;
        if (c.attempts > 1) seen.retried += 1;
      }
      expect(seen.a + seen.b).toBe(30);
      expect(seen.retried).toBeGreaterThan(0); // the race the test is about happened
    }), 120000);
});

describe('sample', () => {
  test('rows per label set and OpenTelemetry attribute set, with their traces counted', () =>
    withWriter(['--spin'], async ({ child, shapes, context }) => {
      const r = await runReader(['sample', String(child.pid), '--hz', '50', '--duration', '1s', '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const rows = jsonLines(r.stdout);
      // The first row carries the process context.
      expect(JSON.stringify(rows[0].process_context)).toBe(JSON.stringify(JSON.parse(contextJson(child.pid, context))));
      expect(rows.slice(1).filter((row) => 'process_context' in row)).toEqual([]);
      const of = (name) => rows.filter((row) => row.tid === shapes.get(name).tid);
      const traced = of('traced');
      expect(traced).toHaveLength(1);
      expect(traced[0].samples).toBeGreaterThan(0);
      expect(traced[0].labels).toEqual({ a: '1' });
      expect(traced[0].otel).toEqual({
        attributes: { 'http.route': '/users/:id', 'user.id': '42' }, traced_samples: traced[0].samples, trace_ids: 1,
      });
      const noTrace = of('no-trace');
      expect(noTrace).toHaveLength(1);
      expect(noTrace[0].otel).toEqual({ attributes: { tenant: 'acme' }, traced_samples: 0, trace_ids: 0 });
      const invalid = of('invalid');
      expect(invalid[0].otel).toEqual({ error: 'valid is 0, not 1: the record is ignored', traced_samples: 0, trace_ids: 0 });
      expect(of('null')[0]).not.toHaveProperty('otel');

      const text = await runReader(['sample', String(child.pid), '--hz', '50', '--duration', '1s', '--tid', String(shapes.get('traced').tid)]);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/\n {3}100\.0% +(\d+) {2}a=1 \| otel http\.route=\/users\/:id user\.id=42 \(1 trace in (\d+) samples\)\n/);
      const [, samples, inTrace] = text.stdout.match(/ {2}(\d+) {2}a=1 \| otel .* \(1 trace in (\d+) samples\)/);
      expect(inTrace).toBe(samples);
    }), 60000);
});
