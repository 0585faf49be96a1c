'use strict';

// customlabels/pprof end to end (test/js/fixtures/pprof-app.js): an Express
// service profiled by a real @datadog/pprof wall profiler (started by the
// Pyroscope SDK, which uploads to an HTTP endpoint here, or by the app,
// which writes its profile), many short requests of tenants in the ratio
// 1:2:3, and the profile decoded as pprof: each tenant's share of CPU and of
// wall samples, the route templates, the span ids, the SDK's own labels,
// nothing on idle samples.

const { spawn, execFile } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const readline = require('node:readline');
const { Profile } = require('pprof-format');

const fixture = path.join(__dirname, '..', '..', 'fixtures', 'pprof-app.js');
const workersFixture = path.join(__dirname, '..', '..', 'fixtures', 'pprof-workers.js');
const rootDir = path.join(__dirname, '..', '..', '..', '..');
const RATIO = { t1: 1, t2: 2, t3: 3 };

// The command that runs `node args` ahead of the machine's other work
// where it may (root: nice -10), so that a busy machine (CI runs suites side
// by side) takes the CPU from the profiled threads (and from the profiler's
// sampling thread) less often: what a sample's CPU time then covers is the
// app's, not the scheduler's.
const favoured = (node, args) => (process.getuid?.() === 0 ? ['nice', ['-n', '-10', node, ...args]] : [node, args]);

// A pprof profile (gzipped or not) as samples: { labels, count, wallNs,
// cpuNs, frames } (frames: function names, leaf first); the list's `period`
// is the profile's sampling interval (ns of wall time).
function decode(buffer) {
  const bytes = buffer[0] === 0x1f && buffer[1] === 0x8b ? zlib.gunzipSync(buffer) : buffer;
  const p = Profile.decode(bytes);
  const S = p.stringTable.strings;
  const types = p.sampleType.map((t) => S[Number(t.type)]);
  const at = (name) => types.indexOf(name);
  const fns = new Map(p.function.map((f) => [Number(f.id), S[Number(f.name)]]));
  const locs = new Map(p.location.map((l) => [Number(l.id), l.line.map((line) => fns.get(Number(line.functionId)))]));
  const samples = p.sample.map((s) => ({
    labels: Object.fromEntries(s.label.map((l) => [S[Number(l.key)], Number(l.str) !== 0 ? S[Number(l.str)] : Number(l.num)])),
    count: Number(s.value[at('samples') === -1 ? at('sample') : at('samples')] ?? 0),
    wallNs: Number(s.value[at('wall')] ?? 0),
    cpuNs: at('cpu') === -1 ? null : Number(s.value[at('cpu')] ?? 0), // null: no CPU time recorded
    frames: s.locationId.flatMap((id) => locs.get(Number(id)) ?? []),
  }));
  Object.defineProperty(samples, 'period', { value: Number(p.period) });
  return samples;
}

// An ingest endpoint as Pyroscope's server has it: POST /ingest, the body
// the gzipped pprof (0.6.2+) or a multipart form with a `profile` part.
function startIngest() {
  const bodies = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      const type = req.headers['content-type'] ?? '';
      const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(type);
      if (boundary !== null) {
        // The part named profile: its bytes between the blank line and the
        // next boundary.
        const marker = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
        let start = body.indexOf(marker);
        while (start !== -1) {
          const next = body.indexOf(marker, start + marker.length);
          const part = body.subarray(start + marker.length, next === -1 ? body.length : next);
          const head = part.indexOf('\r\n\r\n');
          if (/name="profile"/.test(part.subarray(0, head).toString())) {
            body = part.subarray(head + 4, part.length - 2);
            break;
          }
          start = next;
        }
      }
      if (req.url.startsWith('/ingest')) bodies.push({ url: req.url, body });
      res.end('ok');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, bodies, close: () => new Promise((r) => server.close(r)) }),
    );
  });
}

function get(port, urlPath, tenant) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, headers: { 'x-tenant': tenant }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${urlPath}: ${res.statusCode}`))));
    });
    req.on('error', reject);
  });
}

// Requests of each tenant in RATIO (`per` for a share of 1), interleaved,
// `concurrency` at a time.
async function load(port, kind, per, concurrency = 4) {
  const queue = [];
  for (let i = 0; i < per * 3; i++) {
    for (const [tenant, n] of Object.entries(RATIO)) if (i < per * n) queue.push(tenant);
  }
  const urlFor = (tenant) => (kind === 'spans' ? `/spans/${tenant}` : `/t/${tenant}/${kind}`);
  let next = 0;
  const lane = async () => {
    while (next < queue.length) {
      const tenant = queue[next++];
      await get(port, urlFor(tenant), tenant);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return queue.length;
}

// A fixture's environment: each case says itself whether hooks are off
// (CUSTOMLABELS_HOOKS in its `env`), whatever the Jest run exports (CI's
// hook-free lane exports CUSTOMLABELS_HOOKS=0 to every suite).
function childEnv(env) {
  const { CUSTOMLABELS_HOOKS, ...inherited } = process.env;
  return { ...inherited, NODE_NO_WARNINGS: '1', ...env };
}

// Runs the fixture: `env` chooses the profiler and the wiring; `kinds`
// ({ work: per, sdk: per, spans: per }) the requests. Returns { samples,
// result, stderr, code }.
async function run({ env, kinds = { work: 60 }, node = process.execPath }) {
  const ingest = env.CUSTOMLABELS_FIXTURE_PROFILER === 'pyroscope' ? await startIngest() : null;
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-pprof-')), 'profile.pb.gz');
  const child = spawn(...favoured(node, [fixture, ingest === null ? out : ingest.url]), {
    cwd: rootDir,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const lines = readline.createInterface({ input: child.stdout });
  const messages = [];
  let waiting = null;
  lines.on('line', (line) => {
    messages.push(JSON.parse(line));
    if (waiting !== null) waiting();
  });
  const message = async (n) => {
    while (messages.length < n) {
      await new Promise((resolve, reject) => {
        waiting = resolve;
        child.once('exit', () => reject(new Error(`the fixture exited: ${stderr}`)));
      });
    }
    return messages[n - 1];
  };
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const { port } = await message(1);
    for (const [kind, per] of Object.entries(kinds)) await load(port, kind, per);
    await get(port, '/stop', 't1');
    const result = await message(2);
    const code = await exited;
    // Pyroscope's SDK: one upload, the wall profile, at its stop().
    const uploads = ingest?.bodies ?? [];
    const profile = ingest === null ? fs.readFileSync(out) : uploads.length === 1 ? uploads[0].body : undefined;
    return { samples: profile === undefined ? [] : decode(profile), result, stderr, code, uploads };
  } finally {
    child.kill();
    if (ingest !== null) await ingest.close();
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

// The worker fixture (test/js/fixtures/pprof-workers.js): Piscina tasks of
// the three tenants, profiled in the worker. Returns { samples, result,
// stderr, code }.
function runWorkers({ env, node = process.execPath }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-pprof-workers-'));
  const out = path.join(dir, 'worker.pb.gz');
  return new Promise((resolve) => {
    execFile(...favoured(node, [workersFixture, out]), { cwd: rootDir, env: childEnv(env), encoding: 'utf8', timeout: 120000 }, (err, stdout, stderr) => {
      const lines = stdout.trim().split('\n').filter(Boolean);
      const samples = fs.existsSync(out) ? decode(fs.readFileSync(out)) : [];
      fs.rmSync(dir, { recursive: true, force: true });
      resolve({ samples, result: lines.length > 0 ? JSON.parse(lines.pop()) : null, stderr, code: err ? err.code ?? -1 : 0 });
    });
  });
}

// { tenant: share } of `samples` labelled with a tenant, weighted by `by`.
function shares(samples, by, filter = () => true) {
  const sums = {};
  let total = 0;
  for (const s of samples) {
    const t = s.labels.tenant;
    if (t === undefined || !filter(s)) continue;
    sums[t] = (sums[t] ?? 0) + s[by];
    total += s[by];
  }
  return { shares: Object.fromEntries(Object.entries(sums).map(([t, v]) => [t, v / total])), total };
}

// Where `samples` miss the ratio sent: null if they do not.
function ratioMiss(samples, filter = () => true) {
  try {
    expectRatio(samples, filter);
    return null;
  } catch (err) {
    return err.message;
  }
}

// Why a profile cannot judge the labels, or null: its sampling thread was
// starved. A wall profile's samples add up to the time it covered, one
// sample per interval (the profile's period) when the profiler keeps its
// pace; a profiler that lost the CPU takes fewer, each covering what ran
// meanwhile, in a burst, whoever's it was. Fewer than 80% of the samples
// its time asks for is a window the machine (CI runs suites side by side)
// took the CPU in.
// Or: the tenants' shares of the CPU time the samples carry are right, and
// those of the samples themselves are not. Both are shares of the same
// samples, labelled the same way; where they disagree, what differs is when
// the sampler ran (a sample taken late lands on whatever ran then), the
// machine's doing, not the labels'.
// Or: the app's thread lost the CPU for more than a tenth of its work's wall
// time (`burnt`, the fixture's sums), a slice then running in pieces whose
// CPU time lands on whatever the late samples find.
function unfitProfile(samples, filter = () => true, burnt = undefined) {
  if (burnt !== undefined && burnt.wallNs > 0 && burnt.cpuUs * 1000 < 0.9 * burnt.wallNs) {
    return `the app's thread had the CPU for ${((burnt.cpuUs * 1e5) / burnt.wallNs).toFixed(0)} % of its work's wall time`;
  }
  let count = 0;
  let wallNs = 0;
  for (const s of samples) {
    count += s.count;
    wallNs += s.wallNs;
  }
  if (!(samples.period > 0) || wallNs === 0) return null;
  const asked = wallNs / samples.period;
  if (count < 0.8 * asked) return `the profiler took ${count} samples of the ${Math.round(asked)} its time asks for: it was starved`;
  const cpu = samples.some((s) => s.cpuNs !== null);
  if (cpu && shareMiss(samples, 'cpuNs', filter) === null && shareMiss(samples, 'count', (s) => s.cpuNs > 0 && filter(s)) !== null) {
    return 'the CPU time its samples carry is shared as sent, and the samples are not: the sampler ran late';
  }
  return null;
}

// Runs `once()` until its samples give the ratio sent (through `filter`),
// up to `attempts` times, taking a window again only where the machine made
// it unfit (unfitProfile(): the shares of a profiler starved of CPU
// misattribute in bursts, beyond what sampling alone explains, one
// standard deviation of a share here being about a point), or where every
// sample in the tenants' own loops was labelled right (exactButShared()). A
// miss in any other window is returned at once, and fails. The result says
// how many attempts it took (printed).
async function untilRatio(once, filter, attempts = 3) {
  let r;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    r = await once();
    r.attempts = attempt;
    const miss = r.code === 0 ? ratioMiss(r.samples, filter) : null;
    if (miss === null) break;
    const unfit = unfitProfile(r.samples, filter, r.result === undefined ? undefined : r.result.burnt) ?? exactButShared(r.samples);
    if (unfit === null) break;
    process.stderr.write(`pprof e2e: attempt ${attempt} missed the ratio (${miss.split('\n')[0]}) in a window where ${unfit}\n`);
  }
  process.stderr.write(`pprof e2e: ${r.attempts} attempt${r.attempts === 1 ? '' : 's'}\n`);
  return r;
}

// The samples taken in a tenant's own loop (the fixture's spin_t1, spin_t2,
// spin_t3): { taken, wrong } (wrong: the ones whose tenant label is not that
// loop's, as { loop, labels }). The stack and the labels of a sample are
// taken at one instant, so a label on the wrong tenant shows here, sample by
// sample, whatever CPU time the samples carry.
function inOwnLoops(samples) {
  const wrong = [];
  let taken = 0;
  for (const s of samples) {
    // (A frame is the function's name, or file:name:line in Pyroscope's SDK.)
    const loop = s.frames.map((f) => /(?:^|:)spin_(t[123])(?::\d+)?$/.exec(f ?? '')).find((m) => m !== null);
    if (loop === undefined) continue;
    taken += s.count;
    if (s.labels.tenant !== loop[1]) wrong.push({ loop: loop[0], labels: s.labels });
  }
  return { taken, wrong };
}

// Every sample in the tenants' loops carries its loop's tenant.
function expectOwnLoopsLabelled(samples) {
  const { taken, wrong } = inOwnLoops(samples);
  expect({ taken: taken > 0, wrong: wrong.slice(0, 5) }).toEqual({ taken: true, wrong: [] });
}

// Where a window missed the ratio with every one of at least 100 samples in
// the tenants' loops labelled right: the labels were exact and the miss is in
// how the profiler shares CPU time and samples among them (a late sample
// carries the CPU time of the slice before it, whoever's that was; on a
// loaded machine it is late often), a window to take again. Null otherwise.
function exactButShared(samples) {
  const { taken, wrong } = inOwnLoops(samples);
  return taken >= 100 && wrong.length === 0
    ? `each of its ${taken} samples in the tenants' own loops carries that loop's tenant: the profiler shared CPU time and samples among them unevenly`
    : null;
}

// Each tenant's share of CPU and of wall samples within what shareMiss() allows of the
// ratio sent. (Of the wall samples taken while the thread ran: each request
// does the same work, but on a machine whose other processes take the CPU
// from it, a sample taken while the scheduler had it off, the thread's CPU
// time unchanged since the sample before, lands on whatever it was doing,
// as many as the machine's load decides. Those are wall time too, of no
// tenant's making.)
// Profilers that record no CPU time (Pyroscope's SDK 0.3.9 has no
// collectCpuTime): the wall samples alone, all of them.
function expectRatio(samples, filter = () => true) {
  const running = (s) => s.cpuNs > 0 && filter(s);
  const cpu = samples.some((s) => s.cpuNs !== null);
  for (const [by, which] of cpu ? [['cpuNs', filter], ['count', running]] : [['count', filter]]) {
    const { shares: got, total } = shares(samples, by, which);
    expect({ by, tenants: Object.keys(got).sort(), enough: total > 0 }).toEqual({ by, tenants: Object.keys(RATIO), enough: true });
    const miss = shareMiss(samples, by, which);
    if (miss !== null) throw new Error(miss);
  }
}

// How the tenants' shares of `by` over the samples `which` keeps miss the
// ratio sent, or null. Allowed: 3 points, or 4.5 standard errors of a share
// of that many samples where that is wider (sqrt(p(1-p)/n): a profile of a
// few hundred samples of the work is a few points from its truth by
// sampling alone; a label on the wrong tenant moves a share by 16 points or
// more).
function shareMiss(samples, by, which) {
  const sum = Object.values(RATIO).reduce((a, b) => a + b, 0);
  const { shares: got } = shares(samples, by, which);
  const n = samples.filter((s) => s.labels.tenant !== undefined && which(s)).reduce((k, s) => k + s.count, 0);
  for (const [tenant, k] of Object.entries(RATIO)) {
    const p = k / sum;
    const allowed = Math.max(0.03, 4.5 * Math.sqrt((p * (1 - p)) / Math.max(1, n)));
    if (got[tenant] === undefined || Math.abs(got[tenant] - p) > allowed) {
      return `${tenant}'s share of ${by} is ${((got[tenant] ?? 0) * 100).toFixed(1)} %, sent ${(p * 100).toFixed(1)} %, allowed ±${(allowed * 100).toFixed(1)} for ${n} samples (all: ${JSON.stringify(got)})`;
    }
  }
  return null;
}

// Samples on idle (the event loop waiting) carry none of customlabels'
// labels (`own`: their keys; the app's generateLabels may add its own).
function expectIdleUnlabelled(samples, own = ['tenant', 'route', 'method', 'trace_id', 'span_id']) {
  const idle = samples.filter((s) => s.frames.some((f) => f !== undefined && f.includes('(idle)')));
  expect(idle.length).toBeGreaterThan(0);
  expect(idle.filter((s) => own.some((k) => k in s.labels)).map((s) => s.labels)).toEqual([]);
}

// test/versions: one run of `profiler` ('pprof': the app starts
// @datadog/pprof, with useCPED where hooks are off; 'pyroscope') with the
// entry's packages in place (env: NODE_OPTIONS has the overlay). The
// samples become the checkpoints describe-versions reads: each the labels
// it shows, and whether hooks ran.
async function runVersion({ profiler, unsupported, env }) {
  const hooksOff = env.CUSTOMLABELS_HOOKS === '0';
  const once = () =>
    run({ env: { ...env, CUSTOMLABELS_FIXTURE_PROFILER: profiler, CUSTOMLABELS_FIXTURE_CPED: profiler === 'pprof' && hooksOff ? '1' : '' }, kinds: { work: 40 } });
  const expectsRatio = !unsupported && !(profiler === 'pyroscope' && hooksOff);
  const r = expectsRatio ? await untilRatio(once, onWork) : await once();
  const hooks = r.result === undefined ? null : r.result.mode.hooks;
  const checkpoints = r.samples.map((s, i) => ({ name: `sample ${i}`, expect: null, seen: { row: { labels: s.labels } }, hooks }));
  return { ...r, run: { stderr: r.stderr, code: r.code, checkpoints } };
}

const onWork = (s) => s.labels.route === '/t/:tenant/work';

function servedVersion(r) {
  expect(r.result.strategy).toBeDefined();
  expect(r.samples.length).toBeGreaterThan(0);
}

// Supported: the profiler followed as its start decides (Pyroscope's SDK
// with hooks off: no labels, said so), the shares and the route labels.
function checkpointsVersion(r, profiler) {
  const hooks = r.result.mode.hooks;
  const context = profiler === 'pyroscope' ? (hooks ? 'global' : 'none') : hooks ? 'global' : 'frame';
  expect(r.result.strategy.map((s) => s.context)).toEqual([context]);
  if (context === 'none') {
    expect(r.samples.filter((s) => ['tenant', 'route', 'method'].some((k) => k in s.labels))).toEqual([]);
    return;
  }
  expectOwnLoopsLabelled(r.samples);
  expectRatio(r.samples, onWork);
  const shapes = new Set(r.samples.filter(onWork).map((s) => `${s.labels.method} ${/^t[123]$/.test(s.labels.tenant)}`));
  expect([...shapes]).toEqual(['GET true']);
  expectIdleUnlabelled(r.samples);
}

module.exports = { run, runVersion, servedVersion, checkpointsVersion, runWorkers, untilRatio, decode, shares, expectRatio, expectOwnLoopsLabelled, expectIdleUnlabelled, RATIO };
