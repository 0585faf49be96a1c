'use strict';

// Every code snippet of the README and docs/ (by hand, each integration's
// page, traces, the hook-free mode) compiles with tsc --strict against the
// frameworks' own types (Express 5's @types/express, Fastify, Koa's
// @types/koa, hapi, Hono, NestJS, Apollo, Yoga, BullMQ, Piscina, gRPC,
// amqplib, the OpenTelemetry SDK, @datadog/pprof and Pyroscope's SDK), the way a user's project
// resolves customlabels: through its package.json "exports" (module
// nodenext), in four settings: CommonJS and ESM files (.ts, .cts, .mts) in a
// package without "type" and in one with "type": "module". A snippet's
// require()s become the imports TypeScript users write (named imports;
// `import x = require()` in CommonJS, a default import in ESM, for a
// require() used as a value), `module.exports =` becomes `export =` /
// `export default`, and the names a snippet takes as given (`app`,
// `tenant`) are declared from the framework's types in a prelude per
// section.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { root } = require('./helpers');
const { project, compile, SETTINGS } = require('../types/ts-project');

// What each section's snippets take as given, and where to find it.
const PRELUDES = {
  'README.md': `declare const tenant: string;
declare function exportTenant(tenant: string): Promise<void>;`,
  'docs/api.md': `declare const tenant: string;
declare function exportTenant(tenant: string): Promise<void>;
declare function upload(): Promise<void>;`,
  'docs/integrations/express.md': `import express from 'express';
const app = express();`,
  'docs/integrations/fastify.md': `import Fastify from 'fastify';
const app = Fastify();`,
  'docs/integrations/koa.md': `import Koa from 'koa';
const app = new Koa();`,
  'docs/integrations/hapi.md': `import Hapi from '@hapi/hapi';
const server = Hapi.server();`,
  'docs/integrations/hono.md': `import { Hono } from 'hono';
const app = new Hono();`,
  // One snippet per platform (its lines say which).
  'docs/integrations/nest.md express': `import type { NestExpressApplication } from '@nestjs/platform-express';
declare const app: NestExpressApplication;`,
  'docs/integrations/nest.md fastify': `import type { NestFastifyApplication } from '@nestjs/platform-fastify';
declare const app: NestFastifyApplication;`,
  'docs/integrations/graphql.md': `import { ApolloServer } from '@apollo/server';
import { createYoga, createSchema } from 'graphql-yoga';
const typeDefs = 'type Query { a: Int }';
const resolvers = { Query: { a: () => 1 } };
const schema = createSchema({ typeDefs, resolvers });`,
  'docs/integrations/bullmq.md': `import { Queue, Worker } from 'bullmq';
const connection = { host: '127.0.0.1', port: 6379 };
const queue = new Queue('thumbnails', { connection });
const image = 'cat.png';
declare function resize(data: unknown): Promise<void>;`,
  'docs/integrations/grpc.md': '',
  'docs/integrations/amqplib.md': '',
  'docs/integrations/worker.md main': `import { withLabels } from 'customlabels';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
const pool = new Piscina({ filename: 'worker.js' });
const worker = new Worker('worker.js');
const task = { image: 'cat.png' };
const tenant = 'acme';`,
  'docs/integrations/worker.md worker': `import { parentPort } from 'node:worker_threads';
declare function resize(task: unknown): Promise<void>;
declare function work(task: unknown): void;`,
  'docs/integrations/otel.md': '',
  'docs/integrations/pprof.md': '',
  'docs/hook-free.md': '',
};

// The snippets (js/ts) of the README and docs/, each named by its file; the
// NestJS and worker pages' snippets split in their two halves.
function snippets() {
  const files = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  files.push(...fs.readdirSync(path.join(root, 'docs', 'integrations')).map((f) => `docs/integrations/${f}`));
  const out = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const m of text.matchAll(/^```(js|ts)\n([\s\S]*?)^```/gm)) {
      const code = m[2];
      if (file === 'docs/integrations/nest.md') {
        for (const line of code.split('\n').filter(Boolean)) out.push({ heading: `${file} ${line.includes('platform-express') ? 'express' : 'fastify'}`, code: line });
      } else if (file === 'docs/integrations/worker.md') {
        const [main, worker] = code.split(/^\/\/ worker$/m);
        out.push({ heading: `${file} main`, code: main }, { heading: `${file} worker`, code: worker });
      } else {
        out.push({ heading: file, code });
      }
    }
  }
  return out;
}

// The snippet as a TypeScript module of `format` ('cjs' | 'esm').
function toModule({ heading, code }, format) {
  const imports = [];
  const exports = [];
  let n = 0;
  let body = code
    // const { a, b } = require('m');  ->  import { a, b } from 'm';
    .replace(/^const (\{[^}]*\}) = require\('([^']+)'\);/gm, (_, names, spec) => {
      imports.push(`import ${names} from '${spec}';`);
      return '';
    })
    // require('m') used as a value  ->  an import of the module itself
    .replace(/require\('([^']+)'\)/g, (_, spec) => {
      const name = `required${n++}`;
      imports.push(format === 'cjs' ? `import ${name} = require('${spec}');` : `import ${name} from '${spec}';`);
      return name;
    })
    .replace(/^module\.exports = (.*);( *\/\/.*)?$/gm, (_, value) => {
      exports.push(format === 'cjs' ? `export = ${value};` : `export default ${value};`);
      return '';
    });
  // CommonJS has no top-level await.
  if (format === 'cjs') body = `void (async () => {\n${body}\n})();`;
  return `${imports.join('\n')}\n${PRELUDES[heading]}\n${body}\n${exports.join('\n')}\nexport {};\n`;
}

let work;
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-readme-types-'));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

test('the README and docs/ have the snippets this test compiles', () => {
  const headings = snippets().map((s) => s.heading);
  expect(headings.sort()).toEqual(Object.keys(PRELUDES).sort());
});

test.each(SETTINGS)('every snippet of the README and docs/ compiles under --strict: package type %s, %s files (%s)', (type, ext, format) => {
  const dir = path.join(work, `${type}-${ext.slice(1)}`);
  project(dir, type === 'module' ? 'module' : null);
  const files = snippets().map((s, i) => {
    const file = path.join(dir, `snippet${i}${ext}`);
    fs.writeFileSync(file, `// ${s.heading}\n${toModule(s, format)}`);
    return { file, nestFastify: s.heading.endsWith(' fastify') };
  });
  const errors = [
    ...compile(files.filter((f) => !f.nestFastify).map((f) => f.file)),
    ...compile(files.filter((f) => f.nestFastify).map((f) => f.file), { nestFastify: true }),
  ];
  if (errors.length > 0) {
    for (const { file } of files) if (errors.some((e) => e.startsWith(path.basename(file)))) console.log(`${file}:\n${fs.readFileSync(file, 'utf8')}`);
  }
  expect(errors).toEqual([]);
}, 120000);
