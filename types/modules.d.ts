// The integrations, as the table of integrations has them. Written by
// scripts/generate.js; do not edit.

/** The names `CUSTOMLABELS_INTEGRATIONS` takes (customlabels/register). */
export type IntegrationName = 'http' | 'express' | 'fastify' | 'koa' | 'hapi' | 'hono' | 'graphql' | 'bullmq' | 'next' | 'otel' | 'grpc' | 'amqplib' | 'pprof' | 'socketio';

/** The modules of the package, one per integration an app wires by hand. */
export type IntegrationModule = 'customlabels/express' | 'customlabels/fastify' | 'customlabels/koa' | 'customlabels/hapi' | 'customlabels/hono' | 'customlabels/graphql' | 'customlabels/bullmq' | 'customlabels/otel' | 'customlabels/grpc' | 'customlabels/amqplib' | 'customlabels/worker' | 'customlabels/pprof';
