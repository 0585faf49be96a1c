'use strict';

// What the Parca agent keeps of a label set: the first 10 labels, keys of at
// most 25 bytes, values cut to 53 bytes. The reader's own record of these
// limits, with their source (parca-dev/opentelemetry-ebpf-profiler,
// support/ebpf/types.h), is the "parca" profile in
// src/reader/reader_profiles.cc; integrations that publish labels from
// outside the app (job data, client-sent operation names) stay within them.
const PARCA = Object.freeze({ MAX_LABELS: 10, MAX_KEY_BYTES: 25, MAX_VALUE_BYTES: 53 });

module.exports = { PARCA };
