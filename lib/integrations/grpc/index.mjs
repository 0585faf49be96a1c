// ESM entry of customlabels/grpc: the CommonJS implementation, so ESM and
// CJS users share one set of patches and one label slot.
import grpc from './index.js';

export const { instrument, forwardingInterceptor, METADATA_KEY } = grpc;
export default grpc;
