// ESM entry of customlabels/fastify (the CommonJS plugin, re-exported).
import customlabels from './index.js';

export { customlabels };
export default customlabels;
