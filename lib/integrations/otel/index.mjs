// ESM entry of customlabels/otel: the CommonJS implementation, so ESM and
// CommonJS users share one set of patches and one label slot. Written by
// scripts/generate.js from the table of integrations; do not edit.
import otel from './index.js';

export const { CustomLabelsContextManager, DEFAULT_ATTRIBUTES } = otel;
export default otel;
