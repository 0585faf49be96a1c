// Type-checked by test/js/types.test.js (tsc --strict): the integrations'
// declarations accept valid usage; each @ts-expect-error line must be an error.
import Fastify from 'fastify';
import { labels, instrument } from 'customlabels/express';
import customlabels from 'customlabels/fastify';
import { run, handler, postMessage, onMessage, withTaskLabels, LABELS_KEY } from 'customlabels/worker';
import { reason, supported } from 'customlabels';
import * as koa from 'customlabels/koa';
import { plugin as hapiPlugin } from 'customlabels/hapi';
import * as hono from 'customlabels/hono';
import Hapi from '@hapi/hapi';
import { Hono } from 'hono';

const mw = labels({ labels: (req) => ({ tenant: req.get('x-tenant') ?? 'none' }), route: true });
mw({ method: 'GET', get: () => undefined }, {}, () => undefined);
instrument({});

const app = Fastify();
app.register(customlabels, { labels: (request) => ({ tenant: String(request.headers['x-tenant']) }) });

const pool = { run: async (task: unknown) => 42 };
const result: Promise<number> = run(pool, { x: 1 });
const work = handler(async (task: { n: number }) => task.n * 2, { labels: { pool: 'images' } });
const doubled: Promise<number> = work({ n: 2 });
const key: '__customlabels' = LABELS_KEY;
const task: { a: number } = withTaskLabels({ a: 1 });
const port = { postMessage: (v: unknown) => undefined, on: (e: 'message', l: (v: any) => void) => port };
postMessage(port, { a: 1 });
onMessage(port, (t: { a: number }) => t.a);
const why: string | null = reason;
const ok: boolean = supported;

// customlabels/koa, /hapi, /hono on the frameworks' own types
// (Koa ships no types: a structural context)
const koaMiddleware = koa.labels({ labels: (ctx) => ({ tenant: ctx.get('x-tenant') }) });
void koaMiddleware({ method: 'GET', get: () => 'acme' }, async () => undefined);
koa.instrument(class Router {});
const hapiServer = Hapi.server();
void hapiServer.register({ plugin: hapiPlugin, options: { labels: (request) => ({ tenant: String(request.headers['x-tenant']) }), route: true } });
const honoApp = new Hono();
honoApp.use(hono.labels({ labels: (c) => ({ tenant: c.req.header('x-tenant') ?? 'none' }) }));
// @ts-expect-error route is a boolean
koa.labels({ route: 1 });
// @ts-expect-error labels is a function
hono.labels({ labels: { tenant: 'x' } });

// @ts-expect-error route is a boolean
labels({ route: 'yes' });
// @ts-expect-error labels must return labels
labels({ labels: () => 7 });
// @ts-expect-error handler needs a function
handler('nope');

// customlabels/graphql in Apollo's and Yoga's own plugin lists
import { ApolloServer } from '@apollo/server';
import { createYoga, createSchema } from 'graphql-yoga';
import * as gql from 'customlabels/graphql';
const apolloServer = new ApolloServer({ typeDefs: 'type Query { a: Int }', plugins: [gql.apolloPlugin({ labels: ({ headers }) => ({ tenant: headers?.get('x-tenant') ?? 'none' }) })] });
const yogaServer = createYoga({ schema: createSchema({ typeDefs: 'type Query { a: Int }' }), plugins: [gql.yogaPlugin({ type: false })] });
const picked: { name: string; type: string } | null = gql.operationOf('query Q { a }', 'Q');
gql.instrument(ApolloServer);
// @ts-expect-error operation is a boolean
gql.yogaPlugin({ operation: 'yes' });

// customlabels/bullmq on BullMQ's own classes
import { Queue, Worker, type Job } from 'bullmq';
import * as bull from 'customlabels/bullmq';
const queue = new Queue('mail', { connection: { host: '127.0.0.1', port: 1 } });
void bull.add(queue, 'welcome', { to: 'a@b.c' });
const mailWorker = new Worker(
  'mail',
  bull.processor(async (job: Job<{ to: string }>) => job.data.to.length, { labels: (job) => ({ tenant: job.data.to }) }),
  { connection: { host: '127.0.0.1', port: 1 }, autorun: false },
);
// @ts-expect-error producerLabels is a boolean
bull.processor(async () => 1, { producerLabels: 'no' });

export { result, doubled, key, task, why, ok, apolloServer, yogaServer, picked, mailWorker };

// customlabels/otel
import { CustomLabelsContextManager } from 'customlabels/otel';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context as otelContext } from '@opentelemetry/api';

const cm = new CustomLabelsContextManager({
  contextManager: new AsyncLocalStorageContextManager(),
  ids: ['trace_id', 'local_root_span_id'],
  spanLabels: (span) => ({ sampled: String(span.isRecording()) }),
  resource: { 'service.name': 'checkout' },
});
otelContext.setGlobalContextManager(cm.enable());
const n: number = cm.with(cm.active(), (a: number) => a + 1, undefined, 1);
// @ts-expect-error: not an id label
new CustomLabelsContextManager({ ids: ['trace'] });
// @ts-expect-error: spanLabels returns labels
new CustomLabelsContextManager({ spanLabels: () => 42 });
