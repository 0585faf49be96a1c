// ESM entry of customlabels/bullmq (the CommonJS implementation, re-exported).
import bullmq from './index.js';

export const { LABELS_KEY, MAX_LABELS, MAX_KEY_BYTES, MAX_VALUE_BYTES, withJobLabels, withoutJobLabels, withFlowLabels, add, addBulk, addFlow, processor } = bullmq;
export default bullmq;
