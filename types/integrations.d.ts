// Options shared by the HTTP integrations (express, fastify, koa, hapi, hono).
import type { Labels } from './index';

export interface RequestLabelsOptions<Request> {
  /** Extra labels of your own per request (e.g. a tenant from a header); merged over method and route. */
  labels?: (request: Request) => Labels | null | undefined;
  /** Publish the `route` label (the route template). Default true. */
  route?: boolean;
}
