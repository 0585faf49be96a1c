// customlabels/hono: labels each request with `method` and `route` (the
// matched route's path, sub-app prefixes and basePath included).
import type { RequestLabelsOptions } from './integrations';

export type { RequestLabelsOptions };

/** A minimal view of a Hono context (Hono 4). */
export interface HonoContextLike {
  req: { method: string; header(name: string): string | undefined };
}

/** The middleware: `app.use(labels(options))`, first. */
export function labels<Context extends HonoContextLike = HonoContextLike>(
  options?: RequestLabelsOptions<Context>,
): (c: Context, next: () => Promise<void>) => Promise<void | Response>;
