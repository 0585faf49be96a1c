'use strict';

// Number formats of bench/run.js's tables.
const f0 = (x) => (x === undefined ? '—' : x.toFixed(0));
const f1 = (x) => (x === undefined ? '—' : x.toFixed(1));
const ratio = (a, b) => (a === undefined || b === undefined ? '—' : `${(a / b).toFixed(2)}×`);
const bold = (v) => (v === undefined ? '—' : `**${v.toFixed(2)}×**`);

module.exports = { f0, f1, ratio, bold };
