'use strict';

// A TypeScript user's project in a scratch folder, for the type tests:
// customlabels and the frameworks linked into its node_modules, so that
// customlabels resolves through its package.json "exports" (module
// nodenext) as it does in an app, and a compile under --strict.

const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.join(__dirname, '..', '..');
const nest = path.join(root, 'test', 'peers', 'nest11', 'node_modules');

// The four ways a TypeScript file can be a module under nodenext:
// [package "type", file extension, module format].
const SETTINGS = [
  ['commonjs', '.ts', 'cjs'],
  ['commonjs', '.mts', 'esm'],
  ['module', '.ts', 'esm'],
  ['module', '.cts', 'cjs'],
];

// Links what a user's project would have in node_modules.
function project(dir, type) {
  fs.mkdirSync(path.join(dir, 'node_modules', '@types'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'node_modules', '@nestjs'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, ...(type ? { type } : {}) }));
  fs.symlinkSync(root, path.join(dir, 'node_modules', 'customlabels'));
  const link = (from, name) => fs.symlinkSync(path.join(from, name), path.join(dir, 'node_modules', name));
  for (const name of fs.readdirSync(path.join(root, 'node_modules'))) {
    if (name === '@types' || name === '@nestjs' || name === 'customlabels' || name.startsWith('.')) continue;
    link(path.join(root, 'node_modules'), name);
  }
  for (const name of fs.readdirSync(path.join(root, 'node_modules', '@types'))) link(path.join(root, 'node_modules'), `@types/${name}`);
  for (const name of fs.readdirSync(path.join(nest, '@nestjs'))) link(nest, `@nestjs/${name}`);
  for (const name of ['reflect-metadata', 'rxjs']) if (!fs.existsSync(path.join(dir, 'node_modules', name))) link(nest, name);
}

// `nestFastify`: one fastify, as an app that has Nest's platform-fastify
// has (npm dedupes it): test/peers/nest11's, for customlabels' types as for
// Nest's.
function compile(files, { nestFastify = false, outDir = null } = {}) {
  const program = ts.createProgram(files, {
    ...(nestFastify ? { paths: { fastify: [path.join(nest, 'fastify')] } } : {}),
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    esModuleInterop: true,
    skipLibCheck: true,
    types: ['node'],
    ...(outDir !== null ? { noEmit: false, outDir } : {}),
  });
  if (outDir !== null) program.emit();
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
    return `${where} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

module.exports = { project, compile, SETTINGS, root };
