// ESM entry of customlabels/bullmq: the CommonJS implementation, so ESM and
// CommonJS users share one set of patches and one label slot. Written by
// scripts/generate.js from the table of integrations; do not edit.
import bullmq from './index.js';

export const { LABELS_KEY, MAX_LABELS, MAX_KEY_BYTES, MAX_VALUE_BYTES, withJobLabels, withoutJobLabels, withFlowLabels, add, addBulk, addFlow, processor } = bullmq;
export default bullmq;
