// ESM entry of customlabels/worker (the CommonJS implementation, re-exported).
import worker from './index.js';

export const { LABELS_KEY, withTaskLabels, takeTaskLabels, runWithTaskLabels, postMessage, onMessage, run, handler } = worker;
export default worker;
