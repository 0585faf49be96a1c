// ESM entry of customlabels/pprof: the CommonJS implementation, so ESM and
// CJS users share one set of patches and one label slot.
import pprof from './index.js';

export const { instrument, strategy } = pprof;
export default pprof;
