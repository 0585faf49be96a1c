'use strict';

// types/index.d.ts compiles valid usage and rejects invalid usage.

const path = require('node:path');
const ts = require('typescript');
const { root } = require('./helpers');

test('types/index.d.ts type-checks the usage file under --strict', () => {
  const file = path.join(root, 'test', 'types', 'usage.ts');
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2020,
    lib: ['lib.es2020.d.ts'],
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    baseUrl: root,
    paths: { customlabels: ['types/index.d.ts'] },
    types: [],
    noUnusedLocals: false,
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) =>
    ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  );
  expect(diagnostics).toEqual([]);
});
