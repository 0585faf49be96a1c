// ESM entry of customlabels/hapi (the CommonJS plugin, re-exported).
import hapi from './index.js';

export const { plugin } = hapi;
export default hapi;
