// customlabels/fastify: a Fastify plugin labelling each request with
// `method` and `route` (request.routeOptions.url, prefixes included). The
// module is the plugin itself (module.exports), also its `default` and its
// `customlabels`, as it loads: `require('customlabels/fastify')`,
// `import customlabels from 'customlabels/fastify'` and
// `import { customlabels } from 'customlabels/fastify'` are one function.
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import type { RequestLabelsOptions } from './integrations';

declare namespace customlabels {
  type CustomLabelsFastifyOptions = RequestLabelsOptions<FastifyRequest>;
  interface CustomLabelsFastifyPlugin extends FastifyPluginCallback<CustomLabelsFastifyOptions> {
    readonly default: CustomLabelsFastifyPlugin;
    readonly customlabels: CustomLabelsFastifyPlugin;
  }
}

declare const customlabels: customlabels.CustomLabelsFastifyPlugin;
export = customlabels;
