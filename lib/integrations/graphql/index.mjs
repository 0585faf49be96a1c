// ESM entry of customlabels/graphql: the CommonJS implementation, so ESM and
// CommonJS users share one set of patches and one label slot. Written by
// scripts/generate.js from the table of integrations; do not edit.
import graphql from './index.js';

export const { apolloPlugin, yogaPlugin, envelopPlugin, instrument, operationOf, OPERATION_KEY, TYPE_KEY } = graphql;
export default graphql;
