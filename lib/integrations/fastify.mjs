// ESM entry of customlabels/fastify (the CommonJS plugin, re-exported).
import customlabels from './fastify.js';

export { customlabels };
export default customlabels;
