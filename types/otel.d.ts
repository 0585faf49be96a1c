// customlabels/otel: an OpenTelemetry context manager that publishes the
// active span's ids as labels (trace_id, span_id, local_root_span_id) and in
// the thread's OTEP 4947 thread context record.

import type { Attributes, Context, ContextManager, Span, SpanKind } from '@opentelemetry/api';
import type { LabelValue } from './index';

export type IdLabel = 'trace_id' | 'span_id' | 'local_root_span_id';

/**
 * The span spanLabels gets: the API's Span, and what an SDK span also
 * carries (@opentelemetry/sdk-trace-base's: name, kind, attributes); a
 * non-recording span has none of them.
 */
export type SpanOfContext = Span & {
  readonly name?: string;
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
};

export interface CustomLabelsContextManagerOptions {
  /** The context manager to wrap; default: a new AsyncLocalStorageContextManager. */
  contextManager?: ContextManager;
  /** Which ids become labels; default ['trace_id', 'span_id']. */
  ids?: IdLabel[];
  /** Labels of your own, taken once per span when it first becomes active. */
  spanLabels?: (span: SpanOfContext) => { readonly [key: string]: LabelValue } | undefined | null;
  /** Resource attributes (a Resource, or its attributes) for the OTEP 4719 process context. */
  resource?: { attributes: Record<string, unknown> } | Record<string, unknown>;
}

export class CustomLabelsContextManager implements ContextManager {
  constructor(options?: CustomLabelsContextManagerOptions);
  active(): Context;
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F>;
  bind<T>(context: Context, target: T): T;
  enable(): this;
  disable(): this;
  /** Present when the wrapped manager has attach() (context-async-hooks 2.12+). */
  attach?(context: Context): { dispose(): void };
}

/**
 * The default attribute mapping, in order of precedence: [attribute, label]
 * pairs (the first attribute present gives its label).
 */
export const DEFAULT_ATTRIBUTES: ReadonlyArray<readonly [string, string]>;
