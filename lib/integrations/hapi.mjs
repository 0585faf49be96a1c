// ESM entry of customlabels/hapi (the CommonJS plugin, re-exported).
import hapi from './hapi.js';

export const { plugin } = hapi;
export default hapi;
