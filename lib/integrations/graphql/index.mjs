// ESM entry of customlabels/graphql: the CommonJS implementation, so ESM and
// CJS users share one set of patches and one label slot (an ESM app's
// @apollo/server is instrumented when a server with apolloPlugin() starts).
import graphql from './index.js';

export const { apolloPlugin, yogaPlugin, envelopPlugin, instrument, operationOf, OPERATION_KEY, TYPE_KEY } = graphql;
export default graphql;
