// customlabels/fastify: a Fastify plugin labelling each request with
// `method` and `route` (request.routeOptions.url, prefixes included).
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import type { RequestLabelsOptions } from './integrations';

export type CustomLabelsFastifyOptions = RequestLabelsOptions<FastifyRequest>;

declare const customlabels: FastifyPluginCallback<CustomLabelsFastifyOptions>;
export { customlabels };
export default customlabels;
