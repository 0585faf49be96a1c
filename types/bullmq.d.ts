// customlabels/bullmq: BullMQ jobs run under their queue, name and producer's labels.
// Structural types: nothing here imports bullmq, so these compile without it,
// and BullMQ's Queue, FlowProducer, Job and Worker fit them.
import type { Labels } from './index';

/** The property of a job's (plain-object) data that carries the producer's labels. */
export const LABELS_KEY: '__customlabels';
/** What readers keep (the Parca agent), and what this module publishes at most. */
export const MAX_LABELS: 10;
export const MAX_KEY_BYTES: 25;
export const MAX_VALUE_BYTES: 53;

/** The labels a job carries in `data.__customlabels`. */
export type CarriedLabels = Record<string, string>;

/** What the processor reads of a job: BullMQ's Job and its sandboxed job both fit. */
export interface JobLike {
  name: string;
  queueName?: string;
  queueQualifiedName?: string;
  prefix?: string;
  data: any;
}

export interface ProcessorOptions<J extends JobLike = JobLike> {
  /**
   * The worker's own labels, merged over the producer's and over queue and job: an object
   * (set up once) or a function of the job. A `null` value removes a key (`{ job: null }`).
   */
  labels?: Labels | ((job: J) => Labels | null | undefined);
  /** Run under the labels the producer attached (default true); false ignores them. */
  producerLabels?: boolean;
}

/**
 * `data` with the current labels (or `labels`; `null`: none) attached in `__customlabels` (a shallow copy).
 * Plain objects only (`undefined` becomes `{ __customlabels }`); other data is returned unchanged.
 */
export function withJobLabels(data?: undefined, labels?: Labels | null): { __customlabels?: CarriedLabels } | undefined;
export function withJobLabels<T>(data: T, labels?: Labels | null): T;
/** `data` without `__customlabels` (a shallow copy; `data` itself if it has none). */
export function withoutJobLabels<T>(data: T): T;
/** A FlowProducer flow with the current labels (or `labels`) attached to every job in it. */
export function withFlowLabels<F extends object>(flow: F, labels?: Labels | null): F;

/** queue.add(name, data, opts) with the current labels attached. */
export function add<N, D, O, R>(queue: { add(name: N, data: D, opts?: O): R }, name: N, data: D, opts?: O): R;
/** queue.addBulk(jobs) with the current labels attached to each job's data. */
export function addBulk<J extends object, R>(queue: { addBulk(jobs: J[]): R }, jobs: J[]): R;
/** flowProducer.add(flow, opts) with the current labels attached to every job of the flow. */
export function addFlow<F extends object, O, R>(flowProducer: { add(flow: F, opts?: O): R }, flow: F, opts?: O): R;

/**
 * Wraps a processor so each job runs under `queue`, `job` (its name), the producer's labels and
 * `options.labels`: `new Worker(name, processor(fn))`, or `module.exports = processor(fn)` in a
 * sandboxed processor file. Errors of `fn` pass through unchanged.
 */
export function processor<J extends JobLike = JobLike, R = unknown>(
  fn: (job: J, token?: string, signal?: AbortSignal) => R,
  options?: ProcessorOptions<J>,
): (job: J, token?: string, signal?: AbortSignal) => R;
