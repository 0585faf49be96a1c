'use strict';

// ESM and CommonJS users share one API (one AsyncLocalStorage, one switcher).

const { runNode } = require('./helpers');

test('import and require give the same functions, and labels flow between them', async () => {
  const { code, stdout, stderr } = await runNode(
    `
    import * as esm from 'customlabels';
    import esmDefault from 'customlabels';
    import { createRequire } from 'node:module';
    const cjs = createRequire(import.meta.url)('customlabels');
    const out = {
      same: esm.withLabels === cjs.withLabels && esmDefault === cjs,
      nested: await esm.withLabels({ from: 'esm' }, async () => {
        await null;
        return cjs.withLabels({ and: 'cjs' }, esm.currentLabels);
      }),
      after: cjs.currentLabels(),
    };
    process.stdout.write(JSON.stringify(out));
  `,
    { args: ['--input-type=module'] },
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toEqual({ same: true, nested: { from: 'esm', and: 'cjs' }, after: {} });
});

test('loading the package, CJS or ESM, enables no hook until withLabels is first called', async () => {
  const { code, stdout, stderr } = await runNode(`
    const asyncHooks = require('node:async_hooks');
    const v8 = require('node:v8');
    let enabled = 0;
    const createHook = asyncHooks.createHook;
    asyncHooks.createHook = (...a) => {
      const hook = createHook(...a);
      const enable = hook.enable.bind(hook);
      hook.enable = () => { enabled++; return enable(); };
      return hook;
    };
    const promiseHook = v8.promiseHooks.createHook;
    v8.promiseHooks.createHook = (...a) => { enabled++; return promiseHook(...a); };
    const cl = require('customlabels');
    import('customlabels').then(() => {
      const before = enabled;
      cl.withLabels({ a: '1' }, () => {});
      process.stdout.write(JSON.stringify({ before, after: enabled > before }));
    });
  `);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toEqual({ before: 0, after: true });
});

// customlabels/register is imported for what it does (--import, --require):
// both forms export nothing.
const SIDE_EFFECT_ONLY = ['./register'];

test('every subpath export: import gives the CommonJS implementation\'s own functions (register: nothing, either way)', async () => {
  const subpaths = Object.keys(require('../../package.json').exports).filter((s) => s !== '.' && s !== './package.json');
  const { code, stdout, stderr } = await runNode(
    `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const out = {};
    for (const subpath of ${JSON.stringify(subpaths)}) {
      const name = 'customlabels' + subpath.slice(1);
      const esm = await import(name);
      const cjs = require(name);
      const named = Object.keys(esm).filter((k) => k !== 'default');
      out[subpath] = ${JSON.stringify(SIDE_EFFECT_ONLY)}.includes(subpath)
        ? { esm: Object.keys(esm), cjs: Object.keys(cjs) }
        : { default: esm.default === cjs, named: named.length > 0 && named.every((k) => esm[k] === cjs[k]) };
    }
    process.stdout.write(JSON.stringify(out));
  `,
    { args: ['--input-type=module'] },
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toEqual(Object.fromEntries(subpaths.map((s) => [s, SIDE_EFFECT_ONLY.includes(s) ? { esm: [], cjs: [] } : { default: true, named: true }])));
});
