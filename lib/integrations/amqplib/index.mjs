// ESM entry of customlabels/amqplib: the CommonJS implementation, so ESM and
// CommonJS users share one set of patches and one label slot. Written by
// scripts/generate.js from the table of integrations; do not edit.
import amqplib from './index.js';

export const { instrument, HEADER } = amqplib;
export default amqplib;
