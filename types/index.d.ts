// Type definitions for customlabels.

/**
 * A label value. Strings are published as UTF-8; numbers, booleans and
 * bigints as `String(value)`; a `Buffer`/`Uint8Array` as its raw bytes.
 * `null` or `undefined` removes an inherited key inside the scope.
 */
export type LabelValue = string | number | boolean | bigint | Uint8Array | null | undefined;

/** Labels: a plain object or a Map with non-empty string keys. */
export type Labels = { readonly [key: string]: LabelValue } | ReadonlyMap<string, LabelValue>;

/**
 * Runs `fn` with `labels` merged over the current labels (new values win) and
 * published through the Custom Label ABI for the calling thread, in `fn` and
 * in every async continuation it causes. Returns what `fn` returns (a promise
 * passes through unchanged) and restores the previous labels when `fn`
 * returns or throws.
 *
 * @throws {TypeError} with `code`:
 *   `ERR_CUSTOMLABELS_INVALID_LABELS`, `ERR_CUSTOMLABELS_INVALID_CALLBACK`,
 *   `ERR_CUSTOMLABELS_INVALID_KEY` or `ERR_CUSTOMLABELS_INVALID_VALUE`.
 */
export function withLabels<T>(labels: Labels, fn: () => T): T;

/**
 * The labels `custom_labels_current_set` points to on the calling thread
 * right now, decoded as UTF-8; `{}` when none are published.
 */
export function currentLabels(): Record<string, string>;

/**
 * False where labels cannot be published (not Linux x86-64/aarch64, no
 * binary for this platform, or another copy of customlabels holds the label
 * slot with an incompatible protocol): `withLabels` then validates its
 * arguments and calls `fn`.
 */
export const supported: boolean;

/** Why `supported` is false, in words; `null` when it is true. */
export const reason: string | null;

/** How labels are switched on this Node.js version (diagnostics; probes on first call). */
export interface Strategy {
  readonly strategy: 'async-hooks' | 'resource-init+promise-hooks' | 'resource-init' | 'none';
  readonly publish: 'typed-array' | 'native-call' | 'none';
  /** The customlabels.node file that publishes labels in this process, or null. */
  readonly addon: string | null;
  /**
   * OTEP 4947 thread context records and the OTEP 4719 process context:
   * 'off' (CUSTOMLABELS_THREAD_CONTEXT=0, or no addon), 'unpublished' (no
   * label set built yet), 'published', 'other-publisher' (another OTEL_CTX
   * mapping holds the process context: no records) or 'failed'.
   */
  readonly threadContext: 'off' | 'unpublished' | 'published' | 'other-publisher' | 'failed';
  readonly storeVisibleInBefore?: boolean;
  readonly asyncHooksTrackPromises?: boolean;
}
export function strategy(): Strategy;
