'use strict';

// What the Parca agent keeps of a label set: the first 10 labels, keys of at
// most 25 bytes, values cut to 53 bytes. The reader's own record of these
// limits, with their source (parca-dev/opentelemetry-ebpf-profiler,
// support/ebpf/types.h), is the "parca" profile in
// src/reader/reader_profiles.cc; integrations that publish labels from
// outside the app (job data, client-sent operation names) stay within them.
const PARCA = Object.freeze({ MAX_LABELS: 10, MAX_KEY_BYTES: 25, MAX_VALUE_BYTES: 53 });

// `s` cut to `max` bytes of UTF-8 on a character boundary (a lone
// surrogate counts as the 3 bytes of U+FFFD it is encoded as).
function cutUtf8(s, max) {
  if (s.length * 3 <= max) return s; // at most 3 bytes per UTF-16 unit
  if (Buffer.byteLength(s) <= max) return s;
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    let n = 3;
    let units = 1;
    if (c < 0x80) n = 1;
    else if (c < 0x800) n = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n = 4;
        units = 2;
      }
    }
    if (bytes + n > max) break;
    bytes += n;
    i += units;
  }
  return s.slice(0, i);
}

// `s` cut to MAX_VALUE_BYTES.
const cutValue = (s) => cutUtf8(s, PARCA.MAX_VALUE_BYTES);

// What the Parca agent keeps of `labels` ({ key: value }, in the set's
// order): the first MAX_LABELS, keys and values cut to their bytes (on a
// character boundary, where the agent cuts bytes).
function keptLabels(labels) {
  const out = {};
  let n = 0;
  for (const key of Object.keys(labels)) {
    if (n++ === PARCA.MAX_LABELS) break;
    out[cutUtf8(key, PARCA.MAX_KEY_BYTES)] = cutValue(labels[key]);
  }
  return out;
}

// Whether a label key is within what the Parca agent keeps.
const keyFits = (key) => key.length <= 8 || Buffer.byteLength(key) <= PARCA.MAX_KEY_BYTES;

module.exports = { PARCA, cutValue, keptLabels, keyFits };
