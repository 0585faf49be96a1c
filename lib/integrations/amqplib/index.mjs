// ESM entry of customlabels/amqplib: the CommonJS implementation, so ESM and
// CJS users share one set of patches and one label slot.
import amqplib from './index.js';

export const { instrument, HEADER } = amqplib;
export default amqplib;
