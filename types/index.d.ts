// Type definitions for customlabels.

/**
 * A label value. Strings are published as UTF-8; numbers, booleans and
 * bigints as `String(value)`; a `Buffer`/`Uint8Array` as its raw bytes.
 * `null` or `undefined` removes an inherited key inside the scope.
 */
export type LabelValue = string | number | boolean | bigint | Uint8Array | null | undefined;

/** Labels: a plain object or a Map with non-empty string keys. */
export type Labels = { readonly [key: string]: LabelValue } | ReadonlyMap<string, LabelValue>;

/** The names `CUSTOMLABELS_INTEGRATIONS` takes, and the modules of integrations with one. */
export type { IntegrationName, IntegrationModule } from './modules';

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
 * The labels of the running scope as readers see them, decoded as UTF-8:
 * with hooks, what `custom_labels_current_set` points to on the calling
 * thread; without hooks, the set in the store readers walk to. `{}` when
 * none are published.
 */
export function currentLabels(): Record<string, string>;

export interface Options {
  /**
   * Whether async hooks switch `custom_labels_current_set` and
   * `otel_thread_ctx_v1` on every continuation (default: true, or
   * `CUSTOMLABELS_HOOKS=0` for false). False takes effect where readers can
   * walk V8's continuation data instead (AsyncLocalStorage on
   * AsyncContextFrame: Node.js 24+, 22 with a flag); elsewhere hooks stay on
   * and `strategy().hooksReason` says why. Called on the main thread, it is
   * also the default of worker threads.
   */
  readonly hooks?: boolean;
}

/**
 * Sets options for the calling thread; call it before the thread's first
 * `withLabels`, which decides its mode.
 * @throws {TypeError} `ERR_CUSTOMLABELS_INVALID_OPTIONS` for a bad option;
 *   {Error} `ERR_CUSTOMLABELS_CONFIGURED_LATE` for another `hooks` value
 *   after the first scope.
 */
export function configure(options: Options): void;

/** The V8 layout readers of the Node.js walk rely on, as probed in this process. */
export interface NodeLayout {
  readonly taggedSize: number;
  readonly jsMapTableOffset: number;
  readonly orderedHashMapHeaderSize: number;
  /** Wrapper internal field 0: the label set (the Parca agent's walk). */
  readonly labelSetSlotOffset: number;
  /** Wrapper internal field 1: the OTEP 4947 record (`nodejs_v1_dev`). */
  readonly recordSlotOffset: number;
}

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
  /** The process context's `threadlocal.schema_version`, or null without records. */
  readonly schema: 'tlsdesc_v1_dev' | 'nodejs_v1_dev' | null;
  /** Whether hooks switch the TLS pointers on this thread. */
  readonly hooks: boolean;
  /** Why hooks stay on although they were turned off, or null. */
  readonly hooksReason: string | null;
  /** Whether this thread publishes the walk through V8's continuation data. */
  readonly nodeContext: 'published' | 'unavailable';
  readonly nodeContextReason: string | null;
  readonly nodeLayout: NodeLayout | null;
  /** The V8 unit file loaded for this Node.js ABI, or null. */
  readonly v8Unit: string | null;
  readonly storeVisibleInBefore?: boolean;
  readonly asyncHooksTrackPromises?: boolean;
}
export function strategy(): Strategy;
