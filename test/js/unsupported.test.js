'use strict';

// lib/ with no native binding (other platforms), and with a binding that
// cannot expose the TLS slot as a typed array (native-call publishing).

const { createApi } = require('../../lib/api');
const { isSupportedPlatform } = require('../../lib/binding');
const { root, runNode } = require('./helpers');

describe('platforms', () => {
  test.each([
    ['linux', 'x64', true],
    ['linux', 'arm64', true],
    ['linux', 'ia32', false],
    ['darwin', 'arm64', false],
    ['win32', 'x64', false],
  ])('%s/%s supported: %s', (platform, arch, expected) => {
    expect(isSupportedPlatform(platform, arch)).toBe(expected);
  });
});

describe('without the native addon', () => {
  const api = createApi(null);

  test('withLabels just calls fn and returns its result', async () => {
    expect(api.supported).toBe(false);
    expect(api.withLabels({ a: '1' }, () => 7)).toBe(7);
    await expect(api.withLabels({ a: '1' }, async () => 'x')).resolves.toBe('x');
    expect(api.currentLabels()).toEqual({});
  });

  test('input is still validated', () => {
    expect(() => api.withLabels({ a: {} }, () => {})).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_VALUE' }));
    expect(() => api.withLabels({ a: '1' }, null)).toThrow(expect.objectContaining({ code: 'ERR_CUSTOMLABELS_INVALID_CALLBACK' }));
  });
});

test('publishing through native calls (no external ArrayBuffer) keeps every guarantee', async () => {
  const { code, stdout, stderr } = await runNode(`
    const binding = require(${JSON.stringify(`${root}/build/Release/customlabels.node`)});
    const { createApi } = require(${JSON.stringify(`${root}/lib/api.js`)});
    const api = createApi(Object.create(binding, { tlsSlot: { value: () => null } }));
    const { withLabels, currentLabels } = api;
    const seen = [api.strategy().publish];
    withLabels({ a: '1' }, async () => {
      seen.push(currentLabels());
      await new Promise((r) => setTimeout(r, 1));
      seen.push(withLabels({ b: '2' }, currentLabels));
      seen.push(currentLabels());
    }).then(() => {
      seen.push(currentLabels());
      setImmediate(() => { seen.push(currentLabels()); process.stdout.write(JSON.stringify(seen)); });
    });
  `);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toEqual(['native-call', { a: '1' }, { a: '1', b: '2' }, { a: '1' }, {}, {}]);
});
