'use strict';

// customlabels/bullmq: jobs added from labelled scopes with a real Queue on a
// real redis-server (started here, on a free port of 127.0.0.1, stopped
// after) and processed by a real Worker, inline, in sandboxed child
// processes and in sandboxed worker threads, run under {queue, job} plus
// their producer's labels, the worker's own winning; the reader reads each
// checkpoint's thread from outside, in whichever process runs it.

const { REGISTERED } = require('./harness');
const e2e = require('./e2e/bullmq');
const { startRedis, redisServerPath, missingReason } = require('./redis-server');
const { testIf } = require('../helpers');
const bull = require('../../../lib/integrations/bullmq');
const { withLabels, currentLabels } = require('../../..');

const hasRedis = redisServerPath !== null;
const redisTest = testIf(hasRedis, missingReason);

const OWN = { inline: {}, child: { sandbox: 'process' }, thread: { sandbox: 'thread' } };
const STAGES = ['handler', 'after await', 'after timer'];

let redis = null;
beforeAll(async () => {
  if (hasRedis) redis = await startRedis();
}, 30000);
afterAll(async () => {
  if (redis !== null) await redis.stop();
});

describe.each(['inline', 'child', 'thread'])('BullMQ, %s processor', (mode) => {
  let run;
  const queue = `jobs-${mode}`;
  const own = OWN[mode];
  const labelsAt = (name) => {
    const cp = run.checkpoints.find((c) => c.name === name);
    if (cp === undefined) throw new Error(`no checkpoint ${name}`);
    return cp.seen.row.labels;
  };
  const jobIds = e2e.jobIdsOf(mode);

  beforeAll(async () => {
    if (hasRedis) ({ run } = await e2e.run({ port: redis.port, mode }));
  }, 180000);

  redisTest(`${mode}: every job completed, the thrown error failed its first attempt unchanged, and the fixture exited cleanly`, () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    e2e.served({ run, mode });
    const result = run.events.find((e) => e.event === 'result');
    // No label data was bad, except the inline run's hand-written ones: one
    // warning for the process.
    const warnings = [...result.warnings, ...run.events.filter((e) => e.event === 'warning')];
    if (mode === 'inline') {
      expect(warnings).toEqual([expect.objectContaining({ code: 'CUSTOMLABELS_JOB_LABELS' })]);
    } else {
      expect(warnings).toEqual([]);
    }
  });

  redisTest(`${mode}: at every checkpoint the reader sees exactly the job's labels, within the Parca agent's limits, on the thread that runs it`, () => {
    e2e.checkpoints({ run, mode });
    for (const cp of run.checkpoints) {
      // The reader flags any label past the Parca agent's limits under `parca`.
      expect({ name: cp.name, parca: cp.seen.row.parca }).toEqual({ name: cp.name, parca: undefined });
      if (cp.seen.row.labels !== null) expect(Object.keys(cp.seen.row.labels).length).toBeLessThanOrEqual(10);
    }
    const jobs = run.checkpoints.filter((c) => STAGES.some((s) => c.name.endsWith(` ${s}`)));
    for (const id of new Set(jobIds)) {
      for (const stage of STAGES) {
        expect(jobs.map((c) => c.name)).toContainEqual(id === 'tick' ? expect.stringMatching(new RegExp(`^tick@repeat:\\S+ ${stage}$`)) : `${id} ${stage}`);
      }
    }
    for (const cp of jobs) {
      const where = { name: cp.name, inFixture: cp.pid === cp.fixturePid, mainThread: cp.tid === cp.pid };
      if (mode === 'inline') expect(where).toEqual({ name: cp.name, inFixture: true, mainThread: true });
      if (mode === 'child') expect(where).toEqual({ name: cp.name, inFixture: false, mainThread: true });
      if (mode === 'thread') expect(where).toEqual({ name: cp.name, inFixture: true, mainThread: false });
    }
  });

  redisTest(`${mode}: jobs run under queue, job (the job name over the producer's) and the producer's labels, without its trace id; the worker's own labels win`, () => {
    for (const stage of STAGES) {
      expect(labelsAt(`email-0 ${stage}`)).toEqual({ tenant: 'acme', route: '/signup', queue, job: 'send-email', ...own });
      expect(labelsAt(`email-4 ${stage}`)).toEqual({ tenant: 'globex', route: '/signup', queue, job: 'send-email', ...own });
      expect(labelsAt(`delayed ${stage}`)).toEqual({ tenant: 'initech', route: '/later', queue, job: 'later', ...own });
      // Added outside any scope: queue and job only.
      expect(labelsAt(`plain ${stage}`)).toEqual({ queue, job: 'plain', ...own });
      // Long name and value: cut to 53 bytes on a character boundary.
      expect(labelsAt(`long ${stage}`)).toEqual({ tenant: 'acme', note: 'n'.repeat(53), queue, job: 'é'.repeat(26), ...own });
      expect(labelsAt(`own ${stage}`)).toEqual(
        mode === 'inline' ? { tenant: 'acme', queue: 'reports-inline', job: 'monthly', pool: 'reports' } : { tenant: 'acme', queue, job: 'monthly', ...own },
      );
    }
    // The producer's own scope is as it was after adding.
    expect(labelsAt('producer after add')).toEqual({ tenant: 'acme', route: '/signup', job: 'http-request', trace_id: '0af7651916cd43dd8448eb211c80319c' });
  });

  redisTest(`${mode}: a job that throws is read in its error path, and its retry runs under the same labels; the worker's 'failed' listener runs unlabelled`, () => {
    const labels = { tenant: 'globex', route: '/retry', queue, job: 'flaky', ...own };
    expect(labelsAt('retry error path')).toEqual(labels);
    for (const stage of STAGES) {
      expect(labelsAt(`retry ${stage}`)).toEqual(labels);
      expect(labelsAt(`retry retry 1 ${stage}`)).toEqual(labels);
    }
    expect(run.checkpoints.map((c) => c.name)).not.toContain('retry retry 1 error path');
    expect(labelsAt('failed listener retry')).toBeNull();
  });

  redisTest(`${mode}: the processor sees job.data as stored, __customlabels included, and runs where the mode says`, () => {
    const result = run.events.find((e) => e.event === 'result');
    const value = (id) => result.completed.find((c) => c.id === id).value;
    expect(value('email-0').keys).toEqual(['id', 'expect', '__customlabels']);
    expect(value('plain').keys).toEqual(['id', 'expect']);
    for (const { value: v } of result.completed) {
      if (mode === 'child') expect(v.pid).not.toBe(result.pid);
      else expect(v.pid).toBe(result.pid);
      if (mode === 'thread') expect(v.threadId).not.toBe(0);
      else expect(v.threadId).toBe(0);
    }
  });

  if (mode === 'inline') {
    redisTest('inline: labels an untrusted producer wrote run with what is valid, one warning, and the jobs complete', () => {
      for (const stage of STAGES) {
        expect(labelsAt(`bad-type ${stage}`)).toEqual({ queue, job: 'bad-type' });
        expect(labelsAt(`bad-labels ${stage}`)).toEqual({
          tenant: 'acme',
          n: '7',
          ok: 'true',
          big: 'b'.repeat(53),
          k0: 'v0',
          k1: 'v1',
          k2: 'v2',
          k3: 'v3',
          queue,
          job: 'bad-labels',
        });
      }
    });

    redisTest('inline: a flow (parent and child) and a job scheduler\'s runs carry their labels', () => {
      for (const stage of STAGES) {
        expect(labelsAt(`flow-child ${stage}`)).toEqual({ tenant: 'globex', route: '/report', queue, job: 'chunk' });
        expect(labelsAt(`flow-parent ${stage}`)).toEqual({ tenant: 'globex', route: '/report', queue, job: 'report' });
      }
      const ticks = run.checkpoints.filter((c) => /^tick@repeat:\S+ handler$/.test(c.name));
      expect(ticks).toHaveLength(2);
      for (const cp of ticks) expect(cp.seen.row.labels).toEqual({ tenant: 'cron', queue, job: 'tick' });
    });
  }
});

describe('the job data envelope', () => {
  test('the current labels are attached to a shallow copy of plain-object data; other data passes unchanged', () => {
    withLabels({ tenant: 'acme' }, () => {
      const data = Object.freeze({ x: 1 });
      expect(bull.withJobLabels(data)).toEqual({ x: 1, __customlabels: { tenant: 'acme' } });
      expect(Object.keys(data)).toEqual(['x']);
      expect(bull.withJobLabels(undefined)).toEqual({ __customlabels: { tenant: 'acme' } });
      for (const other of [null, 7, 'text', [1], new Map()]) expect(bull.withJobLabels(other)).toBe(other);
    });
    const data = { x: 1 };
    expect(bull.withJobLabels(data)).toBe(data); // no labels: nothing added
    expect(bull.withJobLabels(undefined)).toBeUndefined();
  });

  test('queue, job and OpenTelemetry ids are not carried; the rest is cut to the readers\' limits', () => {
    const scope = { queue: 'q', job: 'j', trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), local_root_span_id: 'c'.repeat(16), tenant: 'é'.repeat(30) };
    scope['k'.repeat(26)] = 'long key';
    for (let i = 0; i < 10; i++) scope[`l${i}`] = String(i);
    const emit = jest.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const sent = withLabels(scope, () => bull.withJobLabels({}));
      expect(sent.__customlabels).toEqual({ tenant: 'é'.repeat(26), l0: '0', l1: '1', l2: '2', l3: '3', l4: '4', l5: '5', l6: '6' });
    } finally {
      emit.mockRestore();
    }
  });

  test('given labels replace the current ones (a Map too, validated as withLabels does)', () => {
    withLabels({ tenant: 'acme' }, () => {
      expect(bull.withJobLabels({}, { tenant: 'globex', trace_id: 'x' })).toEqual({ __customlabels: { tenant: 'globex', trace_id: 'x' } });
      expect(bull.withJobLabels({}, new Map([['n', 1]]))).toEqual({ __customlabels: { n: '1' } });
      expect(bull.withJobLabels({}, {})).toEqual({});
    });
    expect(() => bull.withJobLabels({}, 'tenant=acme')).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_LABELS' }));
    expect(() => bull.withJobLabels({}, { k: {} })).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_VALUE' }));
  });

  test('withoutJobLabels gives the data without the envelope, leaving job.data as it is', () => {
    const data = { x: 1, __customlabels: { tenant: 'acme' } };
    expect(bull.withoutJobLabels(data)).toEqual({ x: 1 });
    expect(data.__customlabels).toEqual({ tenant: 'acme' });
    const plain = { x: 1 };
    expect(bull.withoutJobLabels(plain)).toBe(plain);
  });

  test('add, addBulk and addFlow pass the labelled copies to the queue and the flow producer', async () => {
    const calls = [];
    const queue = { add: async (...a) => calls.push(['add', ...a]), addBulk: async (...a) => calls.push(['addBulk', ...a]) };
    const flows = { add: async (...a) => calls.push(['flow', ...a]) };
    const jobs = [{ name: 'a', data: { i: 1 } }, { name: 'b' }];
    await withLabels({ tenant: 'acme' }, async () => {
      await bull.add(queue, 'n', { i: 0 }, { attempts: 3 });
      await bull.addBulk(queue, jobs);
      await bull.addFlow(flows, { name: 'p', queueName: 'q', children: [{ name: 'c', queueName: 'q', data: { c: 1 } }] }, { queuesOptions: {} });
    });
    const carried = { tenant: 'acme' };
    expect(calls).toEqual([
      ['add', 'n', { i: 0, __customlabels: carried }, { attempts: 3 }],
      ['addBulk', [{ name: 'a', data: { i: 1, __customlabels: carried } }, { name: 'b', data: { __customlabels: carried } }]],
      ['flow', { name: 'p', queueName: 'q', data: { __customlabels: carried }, children: [{ name: 'c', queueName: 'q', data: { c: 1, __customlabels: carried } }] }, { queuesOptions: {} }],
    ]);
    expect(jobs).toEqual([{ name: 'a', data: { i: 1 } }, { name: 'b' }]);
  });
});

describe('processor()', () => {
  const job = (data, name = 'send', queueName = 'mail') => ({ name, queueName, data });

  test('runs fn under queue, job, the producer\'s labels and its own, and returns what fn returns', async () => {
    const p = bull.processor(async (j) => {
      await null;
      return currentLabels();
    }, { labels: { pool: 'mail' } });
    expect(await p(job({ __customlabels: { tenant: 'acme', pool: 'spoofed', job: 'forged' } }))).toEqual({ tenant: 'acme', pool: 'mail', queue: 'mail', job: 'send' });
    expect(await p(job({}))).toEqual({ pool: 'mail', queue: 'mail', job: 'send' });
    // BullMQ's sandboxed job without queueName: from the qualified name.
    expect(await p({ name: 'send', queueQualifiedName: 'bull:mail', prefix: 'bull', data: {} })).toEqual({ pool: 'mail', queue: 'mail', job: 'send' });
  });

  test('options.labels as a function of the job; null removes a key; producerLabels: false ignores the producer', () => {
    const p = bull.processor(() => currentLabels(), { labels: (j) => ({ tenant: j.data.tenant, job: null }), producerLabels: false });
    expect(p(job({ tenant: 'globex', __customlabels: { tenant: 'spoofed', extra: '1' } }))).toEqual({ tenant: 'globex', queue: 'mail' });
  });

  test('producers\' labels never mix jobs up: repeating, unique and reordered labels, names and queues', () => {
    const p = bull.processor(() => currentLabels());
    const names = ['resize', 'crop'];
    for (let i = 0; i < 14000; i++) {
      // Every other job repeats, the others carry an id of their own; then
      // every job has its own, then they repeat again.
      const repeats = i < 10000 ? i % 2 === 0 : i >= 12000;
      const carried = repeats ? { tenant: ['acme', 'globex'][i % 4 === 0 ? 0 : 1], route: '/r' } : { route: '/r', req: `r${i}` };
      const name = names[i % 3 === 0 ? 0 : 1];
      const seen = p(job({ __customlabels: carried }, name));
      const want = { ...carried, queue: 'mail', job: name };
      if (JSON.stringify(Object.entries(seen).sort()) !== JSON.stringify(Object.entries(want).sort())) {
        expect({ i, seen }).toEqual({ i, seen: want });
      }
    }
    // The same labels in another order, and a second queue with the same job name.
    expect(p(job({ __customlabels: { route: '/r', tenant: 'acme' } }))).toEqual({ tenant: 'acme', route: '/r', queue: 'mail', job: 'send' });
    expect(p(job({ __customlabels: { tenant: 'acme', route: '/r' } }, 'send', 'billing'))).toEqual({ tenant: 'acme', route: '/r', queue: 'billing', job: 'send' });
  });

  test('keeps fn\'s arity, so BullMQ makes an AbortSignal only for processors that take one, and passes token and signal on', () => {
    expect(bull.processor((j) => j).length).toBeLessThan(3);
    expect(bull.processor((j, token, signal) => [token, signal]).length).toBe(3);
    const signal = new AbortController().signal;
    expect(bull.processor((j, token, s) => [token, s])(job({}), 'tok', signal)).toEqual(['tok', signal]);
    expect(bull.processor((j, token) => token)(job({}), 'tok')).toBe('tok');
    // A sandbox passes a signal whatever the arity: a rest parameter gets it.
    expect(bull.processor((j, ...rest) => rest)(job({}), 'tok', signal)).toEqual(['tok', signal]);
  });

  test('the worker\'s own labels replacing queue or job take no room: 10 labels in all are kept', () => {
    const own = { queue: 'q2', job: 'j2', ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`o${i}`, 'v'])) };
    const warnings = [];
    const onWarning = (w) => warnings.push(w.code);
    process.on('warning', onWarning);
    try {
      expect(bull.processor(() => currentLabels(), { labels: () => own })(job({}))).toEqual(own);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  test('errors of fn pass through unchanged, thrown or rejected', async () => {
    const err = new Error('boom');
    expect(() => bull.processor(() => {
      throw err;
    })(job({}))).toThrow(err);
    await expect(bull.processor(async () => {
      throw err;
    })(job({}))).rejects.toBe(err);
  });

  test('bad label data never fails a job: it runs with what is valid, and one warning', () => {
    const emit = jest.spyOn(process, 'emitWarning').mockImplementation(() => {});
    globalThis[Symbol.for('customlabels.warned')]?.delete('job-labels'); // lib/core/warnings.js: warned once per thread
    try {
      const p = bull.processor(() => currentLabels());
      expect(p(job({ __customlabels: 42 }))).toEqual({ queue: 'mail', job: 'send' });
      expect(p(job({ __customlabels: { a: { b: 1 }, c: 'ok', '': 'x' } }))).toEqual({ c: 'ok', queue: 'mail', job: 'send' });
      expect(p(job({ __customlabels: null }))).toEqual({ queue: 'mail', job: 'send' });
      expect(p(job('not an object'))).toEqual({ queue: 'mail', job: 'send' });
      expect(p({ name: 7, data: {} })).toEqual({});
      const throwing = bull.processor(() => currentLabels(), { labels: () => {
        throw new Error('no tenant');
      } });
      expect(throwing(job({}))).toEqual({ queue: 'mail', job: 'send' });
      const invalid = bull.processor(() => currentLabels(), { labels: () => ({ tenant: { id: 1 } }) });
      expect(invalid(job({}))).toEqual({ queue: 'mail', job: 'send' });
      expect(emit).toHaveBeenCalledTimes(1);
      expect(emit.mock.calls[0][1]).toEqual({ code: 'CUSTOMLABELS_JOB_LABELS' });
    } finally {
      emit.mockRestore();
    }
  });

  test('bad arguments are TypeErrors with stable codes', () => {
    expect(() => bull.processor(null)).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_CALLBACK' }));
    expect(() => bull.processor(() => {}, 'x')).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_OPTION' }));
    expect(() => bull.processor(() => {}, { labels: 'x' })).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_OPTION' }));
    expect(() => bull.processor(() => {}, { labels: { k: {} } })).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_VALUE' }));
    expect(() => bull.processor(() => {}, { producerLabels: 'yes' })).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_OPTION' }));
    const err = (() => {
      try {
        bull.processor(() => {}, { labels: 5 });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err.message).toBe('Expected an object, a Map or a function for options.labels but received 5 of type number');
  });
});

// customlabels/register: a plain Queue and Worker, inline and with a
// sandboxed processor file in child processes (register instruments the
// child through NODE_OPTIONS), no line of customlabels in either.
describe.each(['inline', 'child'])('BullMQ under customlabels/register, %s processor', (mode) => {
  let result;
  beforeAll(async () => {
    if (hasRedis) result = await e2e.run({ port: redis.port, mode, registered: true, env: REGISTERED });
  }, 180000);

  redisTest(`${mode}: every job ran under queue, job and the labels of the scope that added it, read from outside at each checkpoint`, () => {
    expect(result.run.stderr).toBe('');
    expect(result.run.code).toBe(0);
    e2e.checkpoints(result);
    e2e.served(result);
  });
});
