// ESM entry of customlabels/hapi: the CommonJS implementation, so ESM and
// CommonJS users share one set of patches and one label slot. Written by
// scripts/generate.js from the table of integrations; do not edit.
import hapi from './index.js';

export const { plugin } = hapi;
export default hapi;
