'use strict';

// types/index.d.ts compiles valid usage and rejects invalid usage.

const path = require('node:path');
const ts = require('typescript');
const { root } = require('./helpers');

function typeCheck(file) {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2020,
    lib: ['lib.es2020.d.ts'],
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    baseUrl: root,
    paths: {
      customlabels: ['types/index.d.ts'],
      'customlabels/express': ['types/express.d.ts'],
      'customlabels/fastify': ['types/fastify.d.ts'],
      'customlabels/koa': ['types/koa.d.ts'],
      'customlabels/hapi': ['types/hapi.d.ts'],
      'customlabels/hono': ['types/hono.d.ts'],
      'customlabels/graphql': ['types/graphql.d.ts'],
      'customlabels/bullmq': ['types/bullmq.d.ts'],
      'customlabels/worker': ['types/worker.d.ts'],
      'customlabels/otel': ['types/otel.d.ts'],
    },
    types: ['node'],
    skipLibCheck: true,
    noUnusedLocals: false,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

test('types/index.d.ts type-checks the usage file under --strict', () => {
  expect(typeCheck(path.join(root, 'test', 'types', 'usage.ts'))).toEqual([]);
});

test('the integrations\' declarations type-check their usage file under --strict', () => {
  expect(typeCheck(path.join(root, 'test', 'types', 'integrations.ts'))).toEqual([]);
});

test('every subpath export has its types, CJS and ESM files', () => {
  const pkg = require('../../package.json');
  const fs = require('node:fs');
  for (const [subpath, entry] of Object.entries(pkg.exports)) {
    if (typeof entry === 'string') continue;
    for (const kind of ['types', 'import', 'require']) {
      expect({ subpath, kind, exists: fs.existsSync(path.join(root, entry[kind])) }).toEqual({ subpath, kind, exists: true });
    }
  }
});
