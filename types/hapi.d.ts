// customlabels/hapi: a hapi plugin labelling each request with `method` and
// `route` (request.route.path, e.g. '/users/{id}').
import type { RequestLabelsOptions } from './integrations';

export type { RequestLabelsOptions };

/** A minimal view of a hapi request (@hapi/hapi 21). */
export interface HapiRequestLike {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

export type CustomLabelsHapiOptions = RequestLabelsOptions<HapiRequestLike>;

/** `await server.register({ plugin, options })`. */
export const plugin: {
  name: 'customlabels';
  version: string;
  requirements: { hapi: string };
  once: true;
  register(server: unknown, options?: CustomLabelsHapiOptions): void;
};
