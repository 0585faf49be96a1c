// ALS plus empty hooks of one kind: the dispatch cost any hook-based switch pays.
//   taskset -c 0 node bench/hook-floor.js als|before|before+after|v8-before|v8-before+after
const { AsyncLocalStorage, createHook } = require('async_hooks');
const v8 = require('v8');
const variant = process.argv[2];
const als = new AsyncLocalStorage();
const noop = () => {};
if (variant === 'before+after') createHook({ before: noop, after: noop }).enable();
if (variant === 'before') createHook({ before: noop }).enable();
if (variant === 'v8-before') v8.promiseHooks.createHook({ before: noop });
if (variant === 'v8-before+after') v8.promiseHooks.createHook({ before: noop, after: noop });
const now = () => Number(process.hrtime.bigint());
async function perAwait(requests = 100, awaits = 1000) {
  const start = now();
  await Promise.all(Array.from({ length: requests }, (_, i) => als.run({ c: i }, async () => { for (let k = 0; k < awaits; k++) await null; })));
  return (now() - start) / (requests * awaits);
}
async function perImmediate(chains = 100, hops = 300) {
  const start = now();
  await Promise.all(Array.from({ length: chains }, (_, i) => als.run({ c: i }, () => new Promise((resolve) => { let k = 0; const hop = () => (++k < hops ? setImmediate(hop) : resolve()); setImmediate(hop); }))));
  return (now() - start) / (chains * hops);
}
(async () => { let a=[], b=[]; for (let i=0;i<7;i++){ a.push(await perAwait()); b.push(await perImmediate()); } a.sort((x,y)=>x-y); b.sort((x,y)=>x-y); console.log(process.version, variant.padEnd(16), 'await', a[3].toFixed(0), 'hop', b[3].toFixed(0)); })();
