// ESM entry of customlabels/grpc: the CommonJS implementation, so ESM and
// CommonJS users share one set of patches and one label slot. Written by
// scripts/generate.js from the table of integrations; do not edit.
import grpc from './index.js';

export const { instrument, forwardingInterceptor, METADATA_KEY } = grpc;
export default grpc;
