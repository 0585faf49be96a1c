// customlabels/amqplib: RabbitMQ messages (amqplib 0.10+) run under their queue and the
// producer's labels. Structural types: nothing here imports amqplib, so these compile
// without it, and its modules and messages fit them.
import type { Labels } from './index';

/** What options.labels reads of a delivered message: amqplib's ConsumeMessage fits. */
export interface MessageLike {
  content: Buffer;
  fields: { exchange?: string; routingKey?: string; redelivered?: boolean; [key: string]: any };
  properties: { headers?: Record<string, any>; [key: string]: any };
}

export interface AmqplibOptions<M extends MessageLike = MessageLike> {
  /** exchange and routing_key labels too (routing keys can make a value per message). */
  routing?: boolean;
  /** The consumer's own labels of a message, over queue and the producer's. */
  labels?: (msg: M) => Labels | null | undefined;
  /** Use the labels producers attach (default true). */
  producerLabels?: boolean;
}

/** The amqplib module (require('amqplib') or require('amqplib/callback_api')). */
export interface AmqplibModuleLike {
  connect: (...args: any[]) => any;
}

/**
 * Patches the channels of both APIs of that amqplib; `main` is the file it was loaded from
 * (found in the module cache when not given). True when these options apply (the first call, or
 * the app's own call after customlabels/register's); false if there was nothing left to patch.
 */
export function instrument(amqplib: AmqplibModuleLike, options?: AmqplibOptions, main?: string): boolean;
/** The message header that carries the producer's labels (a JSON string). */
export const HEADER: 'x-customlabels';

declare const amqplib: {
  instrument: typeof instrument;
  HEADER: typeof HEADER;
};
export default amqplib;
