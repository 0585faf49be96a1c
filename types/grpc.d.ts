// customlabels/grpc: gRPC calls (@grpc/grpc-js 1.10+) run under rpc.service and rpc.method.
// Structural types: nothing here imports @grpc/grpc-js, so these compile without it, and
// its module, calls and interceptors fit them.
import type { Labels } from './index';

/** What options.labels reads of a server call: grpc-js's calls of every kind fit. */
export interface ServerCallLike {
  metadata: { get(key: string): Array<string | Buffer> };
  getPeer?(): string;
  [key: string]: any;
}

export interface GrpcOptions<C extends ServerCallLike = ServerCallLike> {
  /** The server's own labels of a call (metadata, peer), over rpc.* and the client's. */
  labels?: (call: C) => Labels | null | undefined;
  /** Merge the labels a client forwarded (default true). */
  forwarded?: boolean;
  /** Clients send the current labels to the server in metadata (default false). */
  forward?: boolean;
}

/** The @grpc/grpc-js module, as instrument() uses it. */
export interface GrpcModuleLike {
  Server: new (...args: any[]) => any;
  Channel?: new (...args: any[]) => any;
  InterceptingCall?: new (...args: any[]) => any;
}

/**
 * Patches the module's servers and clients. True when these options apply (the first call, or
 * the app's own call after customlabels/register's); false if it was patched already.
 */
export function instrument(grpc: GrpcModuleLike, options?: GrpcOptions): boolean;
/** A client interceptor that forwards the current labels, for the clients that should. */
export function forwardingInterceptor(grpc: GrpcModuleLike & { InterceptingCall: new (...args: any[]) => any }): (options: any, nextCall: (options: any) => any) => any;
/** The metadata key that carries forwarded labels (binary, JSON). */
export const METADATA_KEY: 'customlabels-bin';

declare const grpc: {
  instrument: typeof instrument;
  forwardingInterceptor: typeof forwardingInterceptor;
  METADATA_KEY: typeof METADATA_KEY;
};
export default grpc;
