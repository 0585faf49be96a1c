// customlabels/express: labels each request with `method` and, once a route
// matches, `route` (the full route template, e.g. '/api/users/:id').
import type { RequestLabelsOptions } from './integrations';

export type { RequestLabelsOptions };

/**
 * A minimal view of an Express request (Express 4 and 5): Express's own
 * `Request` is one, so the middleware goes to `app.use` under `strict`.
 * Pass your request type (`labels<Request>(...)`) to read more of it.
 */
export interface ExpressRequestLike {
  method: string;
  get(name: string): string | undefined;
}

/** The middleware: `app.use(labels(options))`, first. */
export function labels<Request extends ExpressRequestLike = ExpressRequestLike>(
  options?: RequestLabelsOptions<Request>,
): (req: Request, res: unknown, next: (err?: unknown) => void) => void;

/**
 * Patches an express module (require('express')) so that mount paths are
 * known; done automatically for the express that resolves from customlabels.
 * Call it before building routers when you use another copy.
 */
export function instrument(express: unknown): void;
