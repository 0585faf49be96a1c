// ESM entry of customlabels/hono: the CommonJS implementation, so ESM and
// CommonJS users share one set of patches and one label slot. Written by
// scripts/generate.js from the table of integrations; do not edit.
import hono from './index.js';

export const { labels } = hono;
export default hono;
