// ESM entry of customlabels/worker: the CommonJS implementation, so ESM and
// CommonJS users share one set of patches and one label slot. Written by
// scripts/generate.js from the table of integrations; do not edit.
import worker from './index.js';

export const { LABELS_KEY, withTaskLabels, takeTaskLabels, runWithTaskLabels, postMessage, onMessage, run, handler } = worker;
export default worker;
