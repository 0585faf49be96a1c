// customlabels/worker: labels that travel with tasks to worker threads.
import type { Labels } from './index';

/** The property of a plain-object task that carries the sender's labels. */
export const LABELS_KEY: '__customlabels';

export interface WorkerLabelsOptions {
  /** The worker's own labels, merged over the sender's. */
  labels?: Labels;
}

/** `task` with the labels current on this thread attached (plain objects only; others are returned unchanged). */
export function withTaskLabels<T>(task: T, labels?: Record<string, string>): T;
/** Splits a received message into the sender's labels (or null) and the task. */
export function takeTaskLabels<T>(message: T): { labels: Record<string, string> | null; task: T };
/** Runs fn(task) under the labels the message carries (and options.labels over them). */
export function runWithTaskLabels<T, R>(message: T, fn: (task: T) => R, options?: WorkerLabelsOptions): R;

/** What postMessage sends to: a Worker, a MessagePort, parentPort. */
export interface MessageTarget {
  postMessage(value: unknown, transferList?: readonly any[]): void;
}
/** What onMessage listens on: a Worker, a MessagePort, parentPort. */
export interface MessageSource {
  on(event: 'message', listener: (value: any) => void): unknown;
}
/**
 * port.postMessage(task) with the current labels attached.
 * @throws {TypeError} `ERR_CUSTOMLABELS_INVALID_PORT` for a port without
 *   postMessage(), or null (`parentPort` outside a worker).
 */
export function postMessage(port: MessageTarget | null, task: unknown, transferList?: readonly any[]): void;
/**
 * Runs handler(task) for each message on `port`, under its sender's labels.
 * @throws {TypeError} `ERR_CUSTOMLABELS_INVALID_PORT` for a port without on(),
 *   or null (`parentPort` outside a worker).
 */
export function onMessage<T>(port: MessageSource | null, handler: (task: T) => unknown, options?: WorkerLabelsOptions): (message: unknown) => unknown;

interface PoolLike<R> {
  run(task: any, options?: any): Promise<R>;
}
/** Piscina, caller side: pool.run(task, options) with the current labels attached. */
export function run<R = any>(pool: PoolLike<R>, task: unknown, options?: object): Promise<R>;
/** Piscina (or any pool), worker side: `module.exports = handler(fn)`. */
export function handler<T, R>(fn: (task: T) => R, options?: WorkerLabelsOptions): (message: T) => R;
