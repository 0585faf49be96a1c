// ESM entry of customlabels/pprof: the CommonJS implementation, so ESM and
// CommonJS users share one set of patches and one label slot. Written by
// scripts/generate.js from the table of integrations; do not edit.
import pprof from './index.js';

export const { instrument, strategy } = pprof;
export default pprof;
