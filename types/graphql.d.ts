// customlabels/graphql: each GraphQL operation runs under `graphql.operation` and
// `graphql.type`, on top of the HTTP layer's labels. Structural types: nothing here
// imports @apollo/server or graphql-yoga, so these compile without them, and their
// plugin lists accept what the functions return.
import type { Labels } from './index';

/** The label keys. */
export const OPERATION_KEY: 'graphql.operation';
export const TYPE_KEY: 'graphql.type';

/** What `options.labels` gets, once per operation. */
export interface GraphQLLabelsRequest {
  /** The operation's name, `(anonymous)`, or `(unknown)`, `(persisted)`, `(batch)`. */
  operation: string;
  /** `query`, `mutation`, `subscription`, `(unknown)` or, for an Apollo batch, `(mixed)`. */
  type: string;
  /** The request's headers (undefined for Apollo's executeOperation without `http`). */
  headers: { get(name: string): string | null | undefined } | undefined;
  /** Apollo's HTTPGraphQLRequest or GraphQLRequest, Yoga's Fetch Request. */
  request: unknown;
}

export interface GraphQLLabelsOptions {
  /** Publish `graphql.operation` (default true). */
  operation?: boolean;
  /** Publish `graphql.type` (default true). */
  type?: boolean;
  /** More labels of your own per operation, merged over the GraphQL ones. */
  labels?: (request: GraphQLLabelsRequest) => Labels | null | undefined;
}

/** An Apollo Server 4/5 plugin: `new ApolloServer({ ..., plugins: [apolloPlugin()] })`. */
export function apolloPlugin(options?: GraphQLLabelsOptions): {
  serverWillStart(): Promise<void>;
  requestDidStart(requestContext: { request?: { extensions?: object } }): Promise<{ didResolveSource(requestContext: any): Promise<void> } | undefined>;
};

/** A GraphQL Yoga 5 plugin: `createYoga({ ..., plugins: [yogaPlugin()] })`. */
export function yogaPlugin(options?: GraphQLLabelsOptions): Record<string, (payload: any) => void>;
/** An envelop plugin, for envelop-based servers other than Yoga: parse, validate, execute, subscribe. */
export function envelopPlugin(options?: GraphQLLabelsOptions): Record<string, (payload: any) => void>;

/**
 * Instruments another copy of @apollo/server (its module or its ApolloServer class):
 * `instrument(require('@apollo/server'))` when the copy this package resolves is not the app's.
 */
export function instrument(apollo: object): void;

/** The operation a document (text or parsed) and operationName select, as labelled; null when none. */
export function operationOf(query: string | { kind: 'Document' }, operationName?: string | null): { name: string; type: string } | null;
