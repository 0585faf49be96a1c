'use strict';

// Every subpath's default and named exports type-check the way they load:
// one TypeScript module imports each subpath's default and its named
// exports, and asserts, in types and at run time, what each is (the module
// object, or for customlabels/fastify the plugin function); it is compiled
// under --strict in the four module settings of a nodenext project
// (test/types/ts-project.js), emitted, and run by Node.js from there, so a
// declaration that says what the module does not load fails either tsc or
// the run.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { project, compile, SETTINGS } = require('../types/ts-project');

// [subpath, named exports it has, what its default is]
const SUBPATHS = [
  ['customlabels', ['withLabels', 'currentLabels', 'configure', 'strategy', 'supported', 'reason'], 'module'],
  ['customlabels/express', ['labels', 'instrument'], 'module'],
  ['customlabels/fastify', ['customlabels'], 'plugin'],
  ['customlabels/koa', ['labels', 'instrument'], 'module'],
  ['customlabels/hapi', ['plugin'], 'module'],
  ['customlabels/hono', ['labels'], 'module'],
  ['customlabels/graphql', ['apolloPlugin', 'yogaPlugin', 'envelopPlugin', 'instrument', 'operationOf'], 'module'],
  ['customlabels/bullmq', ['add', 'addBulk', 'addFlow', 'processor', 'withJobLabels'], 'module'],
  ['customlabels/worker', ['run', 'handler', 'postMessage', 'onMessage', 'withTaskLabels', 'runWithTaskLabels', 'takeTaskLabels', 'LABELS_KEY'], 'module'],
  ['customlabels/otel', ['CustomLabelsContextManager'], 'module'],
  ['customlabels/grpc', ['instrument', 'forwardingInterceptor', 'METADATA_KEY'], 'module'],
  ['customlabels/amqplib', ['instrument', 'HEADER'], 'module'],
];

// The module: for each subpath, the default import and the named ones; the
// default holds the same named exports (a module object) or is the plugin.
function source() {
  const lines = [];
  const checks = [];
  SUBPATHS.forEach(([spec, names, kind], i) => {
    lines.push(`import def${i}, { ${names.map((n) => `${n} as n${i}_${n}`).join(', ')} } from '${spec}';`);
    for (const n of names) {
      // Typed: the default's member is the named export's type.
      checks.push(`check('${spec} ${n}', def${i}.${n} === n${i}_${n});`);
      lines.push(`const t${i}_${n}: typeof n${i}_${n} = def${i}.${n};`);
    }
    if (kind === 'plugin') {
      // Typed as callable, and at run time the function itself.
      lines.push(`const f${i}: (...args: never[]) => unknown = def${i};`);
      checks.push(`check('${spec} default is the plugin', typeof def${i} === 'function' && def${i} === def${i}.default);`);
    }
  });
  return `${lines.join('\n')}
const failed: string[] = [];
function check(what: string, ok: boolean): void {
  if (!ok) failed.push(what);
}
${checks.join('\n')}
console.log(JSON.stringify({ failed, checked: ${checks.length} }));
export {};
`;
}

let work;
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-exports-types-'));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

test.each(SETTINGS)("each subpath's default and named exports: package type %s, %s files (%s), in types and as loaded", (type, ext) => {
  const dir = path.join(work, `${type}-${ext.slice(1)}`);
  project(dir, type === 'module' ? 'module' : null);
  const file = path.join(dir, `exports${ext}`);
  fs.writeFileSync(file, source());
  const out = path.join(dir, 'out');
  expect(compile([file], { outDir: out })).toEqual([]);
  const emitted = path.join(out, `exports${{ '.ts': '.js', '.mts': '.mjs', '.cts': '.cjs' }[ext]}`);
  // The emitted module next to the package.json that makes it CJS or ESM.
  fs.copyFileSync(path.join(dir, 'package.json'), path.join(out, 'package.json'));
  const result = JSON.parse(execFileSync(process.execPath, [emitted], { cwd: dir, encoding: 'utf8' }));
  expect(result.failed).toEqual([]);
  expect(result.checked).toBe(SUBPATHS.reduce((n, [, names, kind]) => n + names.length + (kind === 'plugin' ? 1 : 0), 0));
}, 120000);
