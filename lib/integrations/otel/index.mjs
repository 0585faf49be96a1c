// ESM entry of customlabels/otel: the CommonJS implementation, so ESM and
// CJS users share one label slot.
import otel from './index.js';

export const { CustomLabelsContextManager } = otel;
export default otel;
