'use strict';

// Issue #37's trial of V8's own promise hook (Isolate::SetPromiseHook, C++,
// no JS entered; bench/native-promise-hook/) against the JS promise hook
// the switch uses for promise reactions, per `await` (100 concurrent
// chains of 1000 awaits, each in its own AsyncLocalStorage store, as
// bench/hook-floor.js). One variant per process, pinned to CPU 0; blocks of
// every variant in rotating order; medians and ratios with 95 % intervals
// (bench/stats.js). Node.js 24 (AsyncContextFrame: the native switch reads
// the continuation data V8 carries).
//   node bench/native-promise-hook.js [--node 24 --node 26] [--blocks 20]
// (the trial addon is built per Node.js ABI, from that Node.js's headers)
// Variants:
//   als             AsyncLocalStorage#run per chain, no hook
//   js-empty        + v8.promiseHooks before: noop (the floor's promise hook)
//   js-switch       + before: read the store, write a pointer (the bound's
//                   promise work: a typed-array store of the store's slot)
//   native-empty    + an isolate hook that returns at once (what V8's calls
//                   into one cost: init, resolve, before, after, each a call
//                   out of generated code)
//   native-switch   + the isolate hook's before: the frame's Map lookup of
//                   the store and a thread-local pointer store
//   (child)         node bench/native-promise-hook.js --child VARIANT

const path = require('node:path');

const VARIANTS = ['als', 'js-empty', 'js-switch', 'native-empty', 'native-switch'];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function child(variant) {
  const { AsyncLocalStorage } = require('node:async_hooks');
  const v8 = require('node:v8');
  const als = new AsyncLocalStorage();
  const slot = new Float64Array(1);
  if (variant === 'js-empty') v8.promiseHooks.onBefore(() => {});
  if (variant === 'js-switch') {
    v8.promiseHooks.onBefore(() => {
      const store = als.getStore();
      slot[0] = store === undefined ? 0 : store.c;
    });
  }
  if (variant.startsWith('native')) {
    const addon = require(process.env.CUSTOMLABELS_BENCH_NATIVE_HOOK);
    if (variant === 'native-empty') addon.installEmpty();
    else addon.installSwitch(als);
  }
  const now = () => Number(process.hrtime.bigint());
  const perAwait = async (requests = 100, awaits = 1000) => {
    const start = now();
    await Promise.all(Array.from({ length: requests }, (_, i) => als.run({ c: i }, async () => { for (let k = 0; k < awaits; k++) await null; })));
    return (now() - start) / (requests * awaits);
  };
  (async () => {
    const xs = [];
    for (let i = 0; i < 9; i++) xs.push(await perAwait());
    process.stdout.write(JSON.stringify({ variant, ns: median(xs.slice(2)) }));
  })();
}

// The trial addon built for `node` (its headers: the folder above its
// bin/), once per ABI, into bench/native-promise-hook/build-abi<N>/.
function addonFor(node) {
  const fs = require('node:fs');
  const os = require('node:os');
  const { execFileSync } = require('node:child_process');
  const abi = execFileSync(node, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim();
  const src = path.join(__dirname, 'native-promise-hook');
  const file = path.join(src, `build-abi${abi}`, 'native_promise_hook.node');
  if (fs.existsSync(file)) return file;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-native-hook-'));
  for (const f of ['binding.gyp', 'native_promise_hook.cc']) fs.copyFileSync(path.join(src, f), path.join(work, f));
  // (npm's nodedir setting would override the headers asked for.)
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_nodedir$/i.test(k)));
  execFileSync(process.execPath, [require.resolve('node-gyp/bin/node-gyp.js'), 'rebuild', `--nodedir=${path.dirname(path.dirname(node))}`], { cwd: work, env: { ...env, npm_config_nodedir: path.dirname(path.dirname(node)) }, stdio: 'ignore' });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(path.join(work, 'build', 'Release', 'native_promise_hook.node'), file);
  fs.rmSync(work, { recursive: true, force: true });
  return file;
}

async function main() {
  // (Not in the children: bench/harness.js loads the bench apps.)
  const { cli, resolveNode } = require('./cli');
  const { version, rotate, runJson } = require('./harness');
  const { ratioInterval, fmtRatio } = require('./stats');
  const { opt, nodes } = cli(__filename);
  const blocks = Number(opt('--blocks', '20'));
  for (const node of nodes([resolveNode('24')])) await measure(node, blocks, { version, rotate, runJson, ratioInterval, fmtRatio });
  process.exit(0); // (bench/harness.js's apps hold the loop open)
}

async function measure(node, blocks, { version, rotate, runJson, ratioInterval, fmtRatio }) {
  const env = { ...process.env, CUSTOMLABELS_BENCH_NATIVE_HOOK: addonFor(node) };
  const runs = Object.fromEntries(VARIANTS.map((v) => [v, []]));
  for (let b = 0; b < blocks; b++) {
    for (const v of rotate(VARIANTS, b)) runs[v].push((await runJson(node, 'native-promise-hook.js', ['--child', v], env)).ns);
  }
  const med = Object.fromEntries(VARIANTS.map((v) => [v, median(runs[v])]));
  console.log(`Node.js ${version(node)}, ${blocks} blocks, ns per await (median): ${VARIANTS.map((v) => `${v} ${med[v].toFixed(1)}`).join(', ')}`);
  const ratio = (a, b) => {
    const r = runs[a].map((x, i) => x / runs[b][i]);
    return `${a} ÷ ${b} ${fmtRatio(ratioInterval(r))}`;
  };
  for (const [a, b] of [['js-empty', 'als'], ['js-switch', 'als'], ['native-empty', 'als'], ['native-switch', 'als'], ['native-empty', 'js-empty'], ['native-switch', 'js-switch']]) console.log(`  ${ratio(a, b)}`);
}

if (process.argv[2] === '--child') child(process.argv[3]);
else main().catch((err) => {
  console.error(err);
  process.exit(1);
});
