'use strict';

// Every code snippet of the README's Usage (by hand and per framework),
// Traces and hook-free sections compiles with tsc --strict against the
// frameworks' own types (Express 5's @types/express, Fastify, Koa's
// @types/koa, hapi, Hono, NestJS, Apollo, Yoga, BullMQ, Piscina, gRPC,
// amqplib, the OpenTelemetry SDK), the way a user's project
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
  '### By hand': `declare const tenant: string;
declare function exportTenant(tenant: string): Promise<void>;
declare function upload(): Promise<void>;`,
  '### Express (4 and 5)': `import express from 'express';
const app = express();`,
  '### Fastify (4 and 5)': `import Fastify from 'fastify';
const app = Fastify();`,
  '### Koa (2 and 3)': `import Koa from 'koa';
const app = new Koa();`,
  '### hapi (21+)': `import Hapi from '@hapi/hapi';
const server = Hapi.server();`,
  '### Hono (4, on @hono/node-server)': `import { Hono } from 'hono';
const app = new Hono();`,
  // One snippet per platform (its lines say which).
  '### NestJS (10 and 11) express': `import type { NestExpressApplication } from '@nestjs/platform-express';
declare const app: NestExpressApplication;`,
  '### NestJS (10 and 11) fastify': `import type { NestFastifyApplication } from '@nestjs/platform-fastify';
declare const app: NestFastifyApplication;`,
  '### GraphQL (Apollo Server 4 and 5, GraphQL Yoga 5)': `import { ApolloServer } from '@apollo/server';
import { createYoga, createSchema } from 'graphql-yoga';
const typeDefs = 'type Query { a: Int }';
const resolvers = { Query: { a: () => 1 } };
const schema = createSchema({ typeDefs, resolvers });`,
  '### BullMQ (5)': `import { Queue, Worker } from 'bullmq';
const connection = { host: '127.0.0.1', port: 6379 };
const queue = new Queue('thumbnails', { connection });
const image = 'cat.png';
declare function resize(data: unknown): Promise<void>;`,
  '### gRPC (@grpc/grpc-js 1.10+)': '',
  '### RabbitMQ (amqplib 0.10+)': '',
  '### Worker threads and Piscina main': `import { withLabels } from 'customlabels';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
const pool = new Piscina({ filename: 'worker.js' });
const worker = new Worker('worker.js');
const task = { image: 'cat.png' };
const tenant = 'acme';`,
  '### Worker threads and Piscina worker': `import { parentPort } from 'node:worker_threads';
declare function resize(task: unknown): Promise<void>;
declare function work(task: unknown): void;`,
  '## Traces and profiles': '',
  '## Labels without hooks (Node.js 24+)': '',
};

// The README's js/ts snippets, each under the heading it is in; the NestJS
// and worker snippets split in their two halves.
function snippets() {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const out = [];
  let heading = null;
  for (const m of readme.matchAll(/^(#+ [^\n]*)$|^```(js|ts)\n([\s\S]*?)^```/gm)) {
    if (m[1]) {
      heading = m[1];
      continue;
    }
    if (!(heading in PRELUDES) && !(`${heading} express` in PRELUDES) && !(`${heading} main` in PRELUDES)) continue;
    const code = m[3];
    if (heading.startsWith('### NestJS')) {
      for (const line of code.split('\n').filter(Boolean)) out.push({ heading: `${heading} ${line.includes('platform-express') ? 'express' : 'fastify'}`, code: line });
    } else if (heading.startsWith('### Worker threads')) {
      const [main, worker] = code.split(/^\/\/ worker$/m);
      out.push({ heading: `${heading} main`, code: main }, { heading: `${heading} worker`, code: worker });
    } else {
      out.push({ heading, code });
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

test('the README has the snippets this test compiles', () => {
  const headings = snippets().map((s) => s.heading);
  expect(headings.sort()).toEqual(Object.keys(PRELUDES).sort());
});

test.each(SETTINGS)('every README snippet compiles under --strict: package type %s, %s files (%s)', (type, ext, format) => {
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
