// ESM entry of customlabels/fastify: the CommonJS implementation, so ESM and
// CommonJS users share one set of patches and one label slot. Written by
// scripts/generate.js from the table of integrations; do not edit.
import fastify from './index.js';

export { fastify as customlabels };
export default fastify;
