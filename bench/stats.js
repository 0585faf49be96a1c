'use strict';

// Ratios with confidence intervals, from paired runs: each block runs every
// mode once, in fresh processes, back to back, so the machine's drift hits a
// block's modes alike; a block's ratio is one mode's value over another's
// in that block. The ratio reported is the geometric mean of the blocks'
// ratios, and its 95 % interval a percentile bootstrap over blocks (blocks
// resampled with replacement). Ratios of costs are skewed (a slow run
// inflates one side), so they are averaged as logarithms.

// A seeded generator: the same samples give the same interval.
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const quantile = (sorted, q) => {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
};

// { ratio, low, high, halfWidth, n }: the geometric mean of `ratios` and its
// 95 % bootstrap interval; halfWidth is the larger side, relative to ratio.
function ratioInterval(ratios, { resamples = 4000, seed = 1 } = {}) {
  const logs = ratios.map(Math.log);
  const n = logs.length;
  const ratio = Math.exp(mean(logs));
  if (n < 2) return { ratio, low: NaN, high: NaN, halfWidth: Infinity, n };
  const random = mulberry32(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += logs[Math.floor(random() * n)];
    means[r] = sum / n;
  }
  means.sort();
  const low = Math.exp(quantile(means, 0.025));
  const high = Math.exp(quantile(means, 0.975));
  return { ratio, low, high, halfWidth: Math.max(ratio - low, high - ratio) / ratio, n };
}

// About how many blocks an interval of ±`target` (relative) needs, from the
// interval `n` blocks gave (`ratioInterval`'s): its width shrinks as the
// square root of the blocks. Always more than `n`.
function blocksNeeded({ halfWidth, n }, target) {
  if (!Number.isFinite(halfWidth)) return Infinity;
  return Math.max(n + 1, Math.ceil(n * (halfWidth / target) ** 2));
}

const fmtRatio = (r) => `${r.ratio.toFixed(3)}× [${r.low.toFixed(3)}–${r.high.toFixed(3)}]`;

module.exports = { ratioInterval, blocksNeeded, fmtRatio, mean, mulberry32 };
