// customlabels/koa: labels each request with `method` and, once a router
// matched, `route` (the matched template, e.g. '/api/users/:id').
import type { RequestLabelsOptions } from './integrations';

export type { RequestLabelsOptions };

/** A minimal view of a Koa context (Koa 2 and 3). */
export interface KoaContextLike {
  method: string;
  get(field: string): string;
}

/** The middleware: `app.use(labels(options))`, before the routers. */
export function labels<Context extends KoaContextLike = KoaContextLike>(
  options?: RequestLabelsOptions<Context>,
): (ctx: Context, next: () => Promise<unknown>) => Promise<unknown>;

/**
 * Patches a Koa router class (require('@koa/router') or require('koa-router'))
 * so routes registered afterwards label their template; done automatically
 * for the routers that resolve from customlabels.
 */
export function instrument(Router: unknown): void;
