// ESM entry of customlabels/express: the CommonJS implementation, so ESM and
// CommonJS users share one set of patches and one label slot. Written by
// scripts/generate.js from the table of integrations; do not edit.
import express from './index.js';

export const { labels, instrument } = express;
export default express;
