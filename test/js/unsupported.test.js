'use strict';

// lib/ with no native binding (other platforms), and with a binding that
// cannot expose the TLS slot as a typed array (native-call publishing).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createInstance } = require('../../lib/core/instance');
const { isSupportedPlatform, detectLibc, prebuildTarget } = require('../../lib/core/platform');
const { root, runNode, copyPackage } = require('./helpers');

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

describe('which prebuilt binary fits', () => {
  const glibcMaps = '7f1c2a000000-7f1c2a028000 r--p 00000000 08:01 1234  /usr/lib/x86_64-linux-gnu/libc.so.6\n';
  const muslMaps = '7f1c2a000000-7f1c2a014000 r--p 00000000 08:01 99  /lib/ld-musl-x86_64.so.1\n';

  test('the C library is told from what this process mapped', () => {
    expect(detectLibc(glibcMaps)).toBe('glibc');
    expect(detectLibc(muslMaps)).toBe('musl');
    expect(detectLibc('7f1c2a000000-7f1c2a028000 r--p 00000000 08:01 1234  /opt/app/libfoo.so\n')).toBeNull();
    // No /proc to read: Node.js's own report tells (glibc on this machine).
    expect(detectLibc('')).toBe('glibc');
    expect(detectLibc(fs.readFileSync('/proc/self/maps', 'utf8'))).toBe('glibc');
  });

  test.each([
    ['linux', 'x64', 'glibc', 'linux-x64'],
    ['linux', 'arm64', 'glibc', 'linux-arm64'],
    ['linux', 'x64', 'musl', null],
    ['linux', 'x64', null, null],
    ['darwin', 'arm64', null, null],
  ])('%s/%s with %s: %s', (platform, arch, libc, expected) => {
    expect(prebuildTarget(platform, arch, libc)).toBe(expected);
  });
});

describe('a copy of the package with no binary for this machine', () => {
  test('requires fine, runs fn unlabelled, validates, and says why', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-nobinary-'));
    try {
      copyPackage(dir, { addon: false });
      const { code, stdout, stderr } = await runNode(`
        const api = require(${JSON.stringify(dir)});
        let error;
        try { api.withLabels({ k: Symbol('x') }, () => {}); } catch (e) { error = e.code; }
        console.log(JSON.stringify({ supported: api.supported, reason: api.reason, ran: api.withLabels({ a: '1' }, () => 'ran'),
          labels: api.withLabels({ a: '1' }, api.currentLabels), error, strategy: api.strategy() }));
      `);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const out = JSON.parse(stdout);
      expect(out).toMatchObject({ supported: false, ran: 'ran', labels: {}, error: 'ERR_CUSTOMLABELS_INVALID_VALUE' });
      expect(out.reason).toMatch(
        new RegExp(`^the native addon is missing: no prebuilds/linux-${process.arch}/customlabels\\.node and no local build`),
      );
      expect(out.strategy).toEqual({
        strategy: 'none',
        hooks: false,
        hooksReason: out.reason,
        publish: 'none',
        addon: null,
        threadContext: 'off',
        schema: null,
        nodeContext: 'unavailable',
        nodeContextReason: out.reason,
        nodeLayout: null,
        v8Unit: null,
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('without the native addon', () => {
  const { api } = createInstance(null, { reason: 'because' });

  test('withLabels just calls fn and returns its result', async () => {
    expect(api.supported).toBe(false);
    expect(api.reason).toBe('because');
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
    const { createInstance } = require(${JSON.stringify(`${root}/lib/core/instance.js`)});
    const { api } = createInstance(Object.create(binding, { tlsSlot: { value: () => null } }));
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
