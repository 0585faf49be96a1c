// ESM entry of customlabels/koa: the CommonJS implementation, so ESM and
// CommonJS users share one set of patches and one label slot. Written by
// scripts/generate.js from the table of integrations; do not edit.
import koa from './index.js';

export const { labels, instrument } = koa;
export default koa;
