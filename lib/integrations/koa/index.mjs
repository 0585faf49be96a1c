// ESM entry of customlabels/koa: the CommonJS implementation, so ESM and CJS
// users share one set of patches and one label slot.
import koa from './index.js';

export const { labels, instrument } = koa;
export default koa;
