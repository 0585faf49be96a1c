'use strict';

// bench/callgrind-costs.js: the parser behind bench/service-instructions.js's
// numbers. A callgrind dump's own costs are summed per function, a call's
// inclusive cost is not counted as the caller's own, compressed names
// "(id) name" are resolved, generated code is named from the perf map (the
// last code given an address wins), and the kinds add up to the total.
// What the collector calls is GC however it is named, and a helper called
// by both the collector and a request is split by what each call cost.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { selfCosts, costsPerRequest } = require('../../bench/callgrind-costs');

const LIB = '/srv/app/node_modules/customlabels/lib/';

let dir;
// A dump of one event (Ir) with `lines` after callgrind's header.
const writeDump = (name, lines) => fs.writeFileSync(path.join(dir, name), ['# callgrind format', 'version: 1', 'events: Ir', '', ...lines, ''].join('\n'));

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'callgrind-costs-'));
  fs.writeFileSync(
    path.join(dir, 'dump'),
    [
      '# callgrind format',
      'version: 1',
      'events: Ir',
      'summary: 1000',
      '',
      'ob=(1) /usr/bin/node',
      'fn=(1) uv_run',
      '0 100',
      'cfn=(2) 0x0000000000001010',
      'calls=2 0',
      '0 650',
      '+2 20',
      'fn=(2)',
      '0 300',
      'cfn=(3) v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace)',
      'calls=1 0',
      '0 200',
      'cfn=(4) 0x0000000000002008',
      'calls=1 0',
      '0 150',
      'fn=(3)',
      '0 200',
      'fn=(4)',
      '*3 150',
      'fn=(5) v8::internal::compiler::Pipeline::Run()',
      '0 180',
      'fn=(6) 0x0000000000009000',
      '0 50',
      '',
    ].join('\n'),
  );
  writeDump('gc-dump', [
    'fn=(1) uv_run',
    '0 100',
    'cfn=(2) v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace)',
    'calls=1 0',
    '0 600',
    'cfn=(3) __memcpy_avx_unaligned_erms',
    'calls=4 0',
    '0 100',
    'cfn=(4) v8::internal::Compiler::Compile()',
    'calls=1 0',
    '0 200',
    'fn=(2)',
    '0 100',
    'cfn=(5) v8::internal::(anonymous namespace)::IterateObjectCache()',
    'calls=1 0',
    '0 300',
    'cfn=(3)',
    'calls=2 0',
    '0 100',
    'fn=(5)',
    '0 200',
    'cfn=(3)',
    'calls=2 0',
    '0 100',
    'fn=(3)',
    '0 300',
    'fn=(4)',
    '0 200',
  ]);
  // Two helpers only the collector calls, which call each other far more
  // than it calls them (callgrind's recursion copies look like this).
  writeDump('cycle-dump', [
    'fn=(1) uv_run',
    '0 100',
    'cfn=(2) v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace)',
    'calls=1 0',
    '0 1100',
    'cfn=(3) helperA',
    'calls=1 0',
    '0 0',
    'fn=(2)',
    '0 100',
    'cfn=(3)',
    'calls=1 0',
    '0 1000',
    'fn=(3)',
    '0 500',
    'cfn=(4) helperB',
    'calls=50 0',
    '0 100000',
    'fn=(4)',
    '0 500',
    'cfn=(3)',
    'calls=50 0',
    '0 100000',
  ]);
  fs.writeFileSync(
    path.join(dir, 'perf.map'),
    [
      '1000 100 JS:*handle /srv/app/server.js:10:3',
      '2000 40 JS:~old /srv/app/gone.js:1:1',
      `2000 40 JS:*'before ${LIB}core/switcher.js:184:27`,
      '',
    ].join('\n'),
  );
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test("each function's own instructions, never a call's inclusive cost, names resolved from the perf map", () => {
  const { total, self } = selfCosts(path.join(dir, 'dump'), path.join(dir, 'perf.map'));
  expect(Object.fromEntries(self)).toEqual({
    uv_run: 120,
    'JS:*handle /srv/app/server.js:10:3': 300,
    'v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace)': 200,
    [`JS:*'before ${LIB}core/switcher.js:184:27`]: 150,
    'v8::internal::compiler::Pipeline::Run()': 180,
    'generated code, unnamed': 50,
  });
  expect(total).toBe(1000);
});

test('the kinds add up to the total, per request, with customlabels by function', () => {
  const c = costsPerRequest(path.join(dir, 'dump'), path.join(dir, 'perf.map'), LIB, 10);
  expect({ total: c.total, gc: c.gc, compile: c.compile, customlabels: c.customlabels, rest: c.rest }).toEqual({ total: 100, gc: 20, compile: 18, customlabels: 15, rest: 47 });
  expect(c.customlabelsFns).toEqual({ 'before lib/core/switcher.js:184:27': 15 });
  expect(c.restFns['JS:handle /srv/app/server.js:10:3']).toBe(30);
});

test("what the collector calls is GC whatever its name; a helper both call is split by the calls' costs", () => {
  const c = costsPerRequest(path.join(dir, 'gc-dump'), undefined, LIB, 1);
  // memcpy: 300 own instructions, called for 100 from uv_run and for 200
  // from the collector (directly and through the object cache's visit).
  expect({ total: c.total, gc: c.gc, compile: c.compile, customlabels: c.customlabels }).toEqual({ total: 900, gc: 500, compile: 200, customlabels: 0 });
  expect(c.rest).toBeCloseTo(200, 9);
  expect(c.restFns.uv_run).toBe(100);
  expect(c.restFns.__memcpy_avx_unaligned_erms).toBeCloseTo(100, 9);
  expect(Object.keys(c.restFns).sort()).toEqual(['__memcpy_avx_unaligned_erms', 'uv_run']);
});

test('functions that call each other are GC when only the collector calls into them', () => {
  const c = costsPerRequest(path.join(dir, 'cycle-dump'), undefined, LIB, 1);
  expect({ total: c.total, gc: c.gc, compile: c.compile, customlabels: c.customlabels, rest: c.rest }).toEqual({ total: 1200, gc: 1100, compile: 0, customlabels: 0, rest: 100 });
  expect(Object.keys(c.restFns)).toEqual(['uv_run']);
});
