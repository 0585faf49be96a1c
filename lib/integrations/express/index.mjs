// ESM entry of customlabels/express: the CommonJS implementation, so ESM and
// CJS users share one set of patches and one label slot.
import express from './index.js';

export const { labels, instrument } = express;
export default express;
