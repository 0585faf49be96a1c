'use strict';

// The continuation loops bench/micro.js and bench/hops.js time, for a
// mode's run(labels, fn) (./modes.js): ns per await with 100 concurrent
// labelled requests, ns per setImmediate hop with 100 labelled chains.

const now = () => Number(process.hrtime.bigint());

function asyncLoops(run) {
  async function perAwait(requests = 100, awaits = 1000) {
    const start = now();
    await Promise.all(
      Array.from({ length: requests }, (_, i) =>
        run({ route: '/bench', customer: `c${i}` }, async () => {
          for (let k = 0; k < awaits; k++) await null;
        }),
      ),
    );
    return (now() - start) / (requests * awaits);
  }

  async function perImmediate(chains = 100, hops = 300) {
    const start = now();
    await Promise.all(
      Array.from({ length: chains }, (_, i) =>
        run({ route: '/bench', customer: `c${i}` }, () =>
          new Promise((resolve) => {
            let k = 0;
            const hop = () => (++k < hops ? setImmediate(hop) : resolve());
            setImmediate(hop);
          }),
        ),
      ),
    );
    return (now() - start) / (chains * hops);
  }

  return { perAwait, perImmediate };
}

module.exports = { asyncLoops, now };
