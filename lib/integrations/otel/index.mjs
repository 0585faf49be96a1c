// ESM entry of customlabels/otel: the CommonJS implementation, so ESM and
// CJS users share one label slot.
import otel from './index.js';

export const { CustomLabelsContextManager, DEFAULT_ATTRIBUTES } = otel;
export default otel;
