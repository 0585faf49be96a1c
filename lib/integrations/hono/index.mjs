// ESM entry of customlabels/hono (the CommonJS middleware, re-exported).
import hono from './index.js';

export const { labels } = hono;
export default hono;
