'use strict';

// In every continuation the published labels are those of the withLabels
// scopes its async context was created in (AsyncLocalStorage semantics),
// and none where there are none.

const { AsyncLocalStorage, AsyncResource } = require('node:async_hooks');
const { EventEmitter, EventEmitterAsyncResource, once } = require('node:events');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { withLabels, currentLabels } = require('../..');
const { tick, sleep } = require('./helpers');

const A = Object.freeze({ scope: 'A' });
const B = Object.freeze({ scope: 'B' });

// The switch settles (lib/core/switcher.js probes every kind of callback after
// the first scope) before the first test, so that every test here runs
// under the switch this process keeps; 'the switch' at the end checks which.
beforeAll(async () => {
  withLabels(A, () => {});
  for (let i = 0; i < 10; i++) await sleep(5);
});
beforeEach(() => expect(currentLabels()).toEqual({}));
afterEach(() => expect(currentLabels()).toEqual({}));

describe('promises', () => {
  test('await keeps the labels across every kind of awaited value', async () => {
    const seen = await withLabels(A, async () => {
      const out = [currentLabels()];
      await null;
      out.push(currentLabels());
      await Promise.resolve(1);
      out.push(currentLabels());
      await sleep(1);
      out.push(currentLabels());
      await new Promise((resolve) => setImmediate(resolve));
      out.push(currentLabels());
      await { then: (resolve) => resolve() }; // thenable
      out.push(currentLabels());
      return out;
    });
    expect(seen).toEqual(Array(6).fill({ scope: 'A' }));
  });

  test('nested async functions and nested scopes', async () => {
    const inner = async () => {
      await tick();
      return currentLabels();
    };
    const seen = await withLabels(A, async () => {
      const a = await inner();
      const b = await withLabels({ step: 'two' }, inner);
      const c = await inner();
      return [a, b, c];
    });
    expect(seen).toEqual([{ scope: 'A' }, { scope: 'A', step: 'two' }, { scope: 'A' }]);
  });

  test('then/catch/finally reactions run with the labels of where they were attached', async () => {
    const outsidePromise = sleep(1).then(() => currentLabels());
    const seen = await withLabels(A, () => {
      const attached = Promise.resolve().then(() => currentLabels());
      const caught = Promise.reject(new Error('x')).catch(() => currentLabels());
      let fin;
      const finalized = Promise.resolve().finally(() => { fin = currentLabels(); });
      return Promise.all([attached, caught, finalized.then(() => fin)]);
    });
    expect(seen).toEqual([{ scope: 'A' }, { scope: 'A' }, { scope: 'A' }]);
    expect(await outsidePromise).toEqual({});
  });

  test('a promise made inside a scope and awaited outside continues unlabelled', async () => {
    const p = withLabels(A, () => sleep(1));
    await p;
    expect(currentLabels()).toEqual({});
    const q = withLabels(A, async () => { await tick(); return 1; });
    await q.then(() => expect(currentLabels()).toEqual({}));
  });

  test('Promise.all and Promise.race continuations', async () => {
    const seen = await withLabels(A, async () => {
      const all = await Promise.all([sleep(1).then(currentLabels), tick().then(currentLabels), currentLabels()]);
      const afterAll = currentLabels();
      // The other contender never settles: a timer here could win the race
      // on a loaded machine and make the test about scheduling.
      const race = await Promise.race([new Promise(() => {}), tick().then(currentLabels)]);
      const afterRace = currentLabels();
      const settled = await Promise.allSettled([Promise.reject(new Error('x')), tick()]).then(currentLabels);
      const any = await Promise.any([Promise.reject(new Error('x')), tick().then(currentLabels)]);
      return { all, afterAll, race, afterRace, settled, any };
    });
    expect(seen).toEqual({
      all: [A, A, A].map((x) => ({ ...x })),
      afterAll: { scope: 'A' },
      race: { scope: 'A' },
      afterRace: { scope: 'A' },
      settled: { scope: 'A' },
      any: { scope: 'A' },
    });
  });

  test('interleaved async functions each keep their own labels', async () => {
    const run = (labels, n) =>
      withLabels(labels, async () => {
        const out = [];
        for (let i = 0; i < n; i++) {
          await (i % 2 ? tick() : null);
          out.push(currentLabels().scope);
        }
        return out;
      });
    const [a, b, none] = await Promise.all([
      run(A, 20),
      run(B, 20),
      (async () => {
        const out = [];
        for (let i = 0; i < 20; i++) {
          await (i % 3 ? null : tick());
          out.push(currentLabels().scope);
        }
        return out;
      })(),
    ]);
    expect(a).toEqual(Array(20).fill('A'));
    expect(b).toEqual(Array(20).fill('B'));
    expect(none).toEqual(Array(20).fill(undefined));
  });
});

describe('microtasks and ticks', () => {
  test('queueMicrotask', async () => {
    const seen = [];
    withLabels(A, () => queueMicrotask(() => seen.push(currentLabels())));
    queueMicrotask(() => seen.push(currentLabels()));
    await tick();
    expect(seen).toEqual([{ scope: 'A' }, {}]);
  });

  test('process.nextTick', async () => {
    const seen = [];
    withLabels(A, () => process.nextTick(() => seen.push(currentLabels())));
    process.nextTick(() => seen.push(currentLabels()));
    withLabels(B, () => process.nextTick((x) => seen.push([x, currentLabels()]), 'arg'));
    await tick();
    expect(seen).toEqual([{ scope: 'A' }, {}, ['arg', { scope: 'B' }]]);
  });
});

describe('timers', () => {
  test('setTimeout, and an unlabelled timer that fires right after a labelled one', async () => {
    const seen = [];
    withLabels(A, () => setTimeout(() => seen.push(currentLabels()), 2));
    setTimeout(() => seen.push(currentLabels()), 2);
    withLabels(B, () => setTimeout(() => seen.push(currentLabels()), 2));
    // Timers of one duration fire in the order they were set, so this one
    // comes after the three above however late the loop runs.
    await new Promise((resolve) => setTimeout(resolve, 2));
    expect(seen).toEqual([{ scope: 'A' }, {}, { scope: 'B' }]);
  });

  test('setInterval keeps the labels on every run', async () => {
    const seen = await withLabels(A, () =>
      new Promise((resolve) => {
        const out = [];
        const t = setInterval(() => {
          out.push(currentLabels());
          if (out.length === 3) {
            clearInterval(t);
            resolve(out);
          }
        }, 1);
      }),
    );
    expect(seen).toEqual(Array(3).fill({ scope: 'A' }));
  });

  test('setImmediate, labelled and unlabelled back to back', async () => {
    const seen = [];
    withLabels(A, () => setImmediate(() => seen.push(currentLabels())));
    setImmediate(() => seen.push(currentLabels()));
    withLabels(B, () => setImmediate(() => seen.push(currentLabels())));
    setImmediate(() => seen.push(currentLabels()));
    // Immediates run in the order they were queued: this one runs last (a
    // timer could fire first on a loaded machine).
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([{ scope: 'A' }, {}, { scope: 'B' }, {}]);
  });

  test('timers/promises', async () => {
    const timersPromises = require('node:timers/promises');
    const seen = await withLabels(A, async () => {
      await timersPromises.setTimeout(1);
      const a = currentLabels();
      await timersPromises.setImmediate();
      return [a, currentLabels()];
    });
    expect(seen).toEqual([{ scope: 'A' }, { scope: 'A' }]);
  });
});

describe('file system', () => {
  const file = path.join(os.tmpdir(), `customlabels-async-${process.pid}.txt`);
  beforeAll(() => fs.writeFileSync(file, 'content'));
  afterAll(() => fs.rmSync(file, { force: true }));

  test('fs callbacks', async () => {
    const seen = await new Promise((resolve) => {
      const out = [];
      const done = () => out.length === 3 && resolve(out);
      withLabels(A, () => fs.readFile(file, () => { out.push(['A', currentLabels()]); done(); }));
      fs.stat(file, () => { out.push(['none', currentLabels()]); done(); });
      withLabels(B, () => fs.access(file, () => { out.push(['B', currentLabels()]); done(); }));
    });
    for (const [which, labels] of seen) {
      expect(labels).toEqual(which === 'none' ? {} : { scope: which });
    }
  });

  test('fs.promises', async () => {
    const seen = await withLabels(A, async () => {
      const content = await fs.promises.readFile(file, 'utf8');
      const a = currentLabels();
      const handle = await fs.promises.open(file);
      const b = currentLabels();
      await handle.close();
      return [content, a, b, currentLabels()];
    });
    expect(seen).toEqual(['content', { scope: 'A' }, { scope: 'A' }, { scope: 'A' }]);
  });

  test('a stream created in a scope emits its events labelled', async () => {
    const seen = await withLabels(A, () =>
      new Promise((resolve, reject) => {
        const out = [];
        fs.createReadStream(file)
          .on('data', () => out.push(currentLabels()))
          .on('error', reject)
          .on('close', () => resolve([...out, currentLabels()]));
      }),
    );
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const labels of seen) expect(labels).toEqual({ scope: 'A' });
  });
});

describe('sockets on 127.0.0.1', () => {
  test('a net client made in a scope sees its labels in connect, data and end events', async () => {
    const server = net.createServer((sock) => sock.end('hello'));
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address();
    try {
      const seen = await withLabels(A, () =>
        new Promise((resolve, reject) => {
          const out = {};
          const sock = net.connect(port, '127.0.0.1', () => { out.connect = currentLabels(); });
          sock.on('data', () => { out.data = currentLabels(); });
          sock.on('error', reject);
          sock.on('end', () => { out.end = currentLabels(); });
          sock.on('close', () => resolve(out));
        }),
      );
      expect(seen).toEqual({ connect: { scope: 'A' }, data: { scope: 'A' }, end: { scope: 'A' } });
    } finally {
      server.close();
    }
  });

  test('an http server labels each request through a middleware-like wrapper', async () => {
    const labelsMiddleware = (handler) => (req, res) =>
      withLabels({ route: req.url, customer: req.headers['x-customer'] }, () => handler(req, res));
    const handler = async (req, res) => {
      const seen = { sync: currentLabels() };
      await null;
      seen.await = currentLabels();
      await sleep(Number(req.headers['x-delay']));
      seen.timer = currentLabels();
      await fs.promises.stat(__filename);
      seen.fs = currentLabels();
      await new Promise((r) => setImmediate(r));
      seen.immediate = currentLabels();
      res.on('finish', () => {});
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(seen));
    };
    const server = http.createServer(labelsMiddleware(handler));
    server.keepAliveTimeout = 100;
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    try {
      const request = (i) =>
        withLabels({ client: `c${i}` }, () =>
          new Promise((resolve, reject) => {
            const req = http.get(
              { host: '127.0.0.1', port, path: `/r${i % 5}`, agent, headers: { 'x-customer': `cust${i}`, 'x-delay': String(i % 4) } },
              (res) => {
                const onResponse = currentLabels();
                let body = '';
                res.on('data', (d) => (body += d));
                res.on('end', () => resolve({ i, onResponse, onEnd: currentLabels(), server: JSON.parse(body) }));
              },
            );
            req.on('error', reject);
          }),
        );
      const results = await Promise.all(Array.from({ length: 24 }, (_, i) => request(i)));
      for (const { i, onResponse, onEnd, server: seen } of results) {
        const expected = { route: `/r${i % 5}`, customer: `cust${i}` };
        expect(seen).toEqual({ sync: expected, await: expected, timer: expected, fs: expected, immediate: expected });
        expect(onResponse).toEqual({ client: `c${i}` });
        expect(onEnd).toEqual({ client: `c${i}` });
      }
    } finally {
      agent.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('events and async resources', () => {
  test('EventEmitterAsyncResource listeners run with the labels of where it was created', async () => {
    const emitter = withLabels(A, () => new EventEmitterAsyncResource({ name: 'Job' }));
    const seen = [];
    emitter.on('progress', () => seen.push(currentLabels()));
    emitter.emit('progress'); // from an unlabelled context
    withLabels(B, () => emitter.emit('progress'));
    await tick();
    expect(seen).toEqual([{ scope: 'A' }, { scope: 'A' }]);
    emitter.emitDestroy();
  });

  test('a plain EventEmitter runs listeners in the emitting context', () => {
    const emitter = new EventEmitter();
    const seen = [];
    emitter.on('x', () => seen.push(currentLabels()));
    withLabels(A, () => emitter.emit('x'));
    emitter.emit('x');
    expect(seen).toEqual([{ scope: 'A' }, {}]);
  });

  test('events.once resolves into the awaiting scope', async () => {
    const emitter = new EventEmitter();
    const waiting = withLabels(A, async () => {
      await once(emitter, 'ready');
      return currentLabels();
    });
    setImmediate(() => emitter.emit('ready'));
    expect(await waiting).toEqual({ scope: 'A' });
  });

  test('AsyncResource.runInAsyncScope gives the caller its labels back', () => {
    const resource = withLabels(A, () => new AsyncResource('Job'));
    const unlabelled = new AsyncResource('Plain');
    const seen = withLabels(B, () => {
      const inside = resource.runInAsyncScope(currentLabels);
      const after = currentLabels();
      const insidePlain = unlabelled.runInAsyncScope(currentLabels);
      return { inside, after, insidePlain, afterPlain: currentLabels() };
    });
    expect(seen).toEqual({ inside: { scope: 'A' }, after: { scope: 'B' }, insidePlain: {}, afterPlain: { scope: 'B' } });
    expect(resource.runInAsyncScope(currentLabels)).toEqual({ scope: 'A' });
    expect(currentLabels()).toEqual({});
  });

  test('AsyncResource.bind and a nested withLabels inside it', () => {
    const bound = withLabels(A, () => AsyncResource.bind((x) => [x, currentLabels(), withLabels({ n: '1' }, currentLabels)]));
    const seen = withLabels(B, () => [bound('arg'), currentLabels()]);
    expect(seen).toEqual([['arg', { scope: 'A' }, { scope: 'A', n: '1' }], { scope: 'B' }]);
    expect(bound('again')[1]).toEqual({ scope: 'A' });
  });

  test('AsyncLocalStorage.bind and AsyncLocalStorage.snapshot run with the labels they captured', () => {
    const snapshot = withLabels(A, () => AsyncLocalStorage.snapshot());
    const bound = withLabels({ bound: 'yes' }, () => AsyncLocalStorage.bind(() => currentLabels()));
    const seen = withLabels(B, () => [snapshot(() => currentLabels()), bound(), currentLabels()]);
    expect(seen).toEqual([{ scope: 'A' }, { bound: 'yes' }, { scope: 'B' }]);
    expect(bound()).toEqual({ bound: 'yes' });
    expect(currentLabels()).toEqual({});
  });

  test('an exception thrown inside runInAsyncScope restores the caller labels', () => {
    const resource = withLabels(A, () => new AsyncResource('Job'));
    withLabels(B, () => {
      expect(() => resource.runInAsyncScope(() => { throw new Error('x'); })).toThrow('x');
      expect(currentLabels()).toEqual({ scope: 'B' });
    });
  });
});

// Which switch keeps the slot current (lib/core/switcher.js): on AsyncContextFrame
// lines, once its probes pass, 'frame-before' (no init hook, no promise
// `after`, the slot cleared when the loop waits); CUSTOMLABELS_SWITCH=
// resource-init keeps the switch it replaces, which CI runs these suites
// under too. (With hooks off, as in CI's hook-free runs, no switch runs.)
describe('the switch', () => {
  const { runNode } = require('./helpers');
  const { strategy } = require('../..');
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const major = Number(process.versions.node.split('.')[0]);
  const frameLine = major >= 24 || flags.includes('--experimental-async-context-frame');
  // Node 22 with its flag: async_hooks cannot leave promises out there
  // (createHook has no trackPromises), so the probe finds the promise hooks
  // not needed and the switch stays 'resource-init', with no upgrade.
  const old = !frameLine ? 'async-hooks' : major >= 24 ? 'resource-init+promise-hooks' : 'resource-init';
  const upgrades = frameLine && major >= 24;
  const settle = `const cl = require('.');
    cl.withLabels({ a: '1' }, () => {});
    const seen = [cl.strategy().strategy];
    let turns = 0;
    (function again() {
      if (++turns < 20) return setTimeout(again, 5);
      seen.push(cl.strategy().strategy, cl.strategy().clearsWhenIdle);
      console.log(JSON.stringify(seen));
    })();`;
  const hooksOn = { CUSTOMLABELS_HOOKS: '1' };

  test(upgrades ? "settles on 'frame-before' once its probes have seen every kind of callback" : `is '${old}' on this line, where 'frame-before' does not apply`, async () => {
    const r = await runNode(settle, { env: { ...hooksOn, CUSTOMLABELS_SWITCH: '' } });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(upgrades ? [old, 'frame-before', true] : [old, old, false]);
  });

  // A program whose first labelled work is a long stretch of microtasks (a
  // batch job, a CPU-bound task) runs it with the settled promise switch:
  // the probe switches promises at the first microtask checkpoint, before
  // the event loop turns. The labels stay exact there, nested scopes too.
  test(upgrades ? "switches promises by `before` alone from the first microtask checkpoint, before the loop turns" : `stays '${old}' through a first stretch of microtasks`, async () => {
    const r = await runNode(`const cl = require('.');
      const { AsyncResource } = require('node:async_hooks');
      const seen = [];
      cl.withLabels({ job: 'batch' }, async () => {
        seen.push(cl.strategy().strategy);
        const other = cl.withLabels({ job: 'other' }, () => new AsyncResource('Nested'));
        for (let i = 0; i < 1000; i++) await null;
        seen.push(cl.strategy().strategy, cl.strategy().clearsWhenIdle, cl.currentLabels());
        seen.push(other.runInAsyncScope(() => cl.currentLabels()), cl.currentLabels());
        setImmediate(() => {
          seen.push(cl.currentLabels());
          setTimeout(() => {
            seen.push(cl.strategy().strategy, cl.currentLabels());
            console.log(JSON.stringify(seen));
          }, 20);
        });
      });`, { env: { ...hooksOn, CUSTOMLABELS_SWITCH: '' } });
    expect(r.stderr).toBe('');
    const stretch = upgrades ? 'resource-init+promise-before' : old;
    expect(JSON.parse(r.stdout)).toEqual([
      old,
      stretch, upgrades, { job: 'batch' },
      { job: 'other' }, { job: 'batch' },
      { job: 'batch' },
      upgrades ? 'frame-before' : old, { job: 'batch' },
    ]);
  });

  test('CUSTOMLABELS_SWITCH=resource-init keeps the switch that records the store on every resource', async () => {
    const r = await runNode(settle, { env: { ...hooksOn, CUSTOMLABELS_SWITCH: 'resource-init' } });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([old, old, false]);
  });

  test('every test in this file ran under the switch this process was meant to use', async () => {
    const seen = await withLabels(A, async () => { await tick(); return currentLabels(); });
    expect(seen).toEqual({ scope: 'A' });
    const meant = !strategy().hooks ? 'none' : upgrades && process.env.CUSTOMLABELS_SWITCH !== 'resource-init' ? 'frame-before' : old;
    expect(strategy().strategy).toBe(meant);
  });
});
