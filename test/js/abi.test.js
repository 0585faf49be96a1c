'use strict';

// The built addon as readers see it: symbols, relocation, TLS block, and
// static TLS at run time in a real Node.js process.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const { Worker } = require('node:worker_threads');
const { addonPath, runNode } = require('./helpers');

const binding = require(addonPath);
const readelf = (flag) => execFileSync('readelf', ['-W', flag, addonPath], { encoding: 'utf8' });
const machine = process.arch === 'arm64' ? 'AARCH64' : 'X86_64';

// The addon's thread-local variables, each exported, each reached through a
// TLSDESC relocation naming it.
const TLS_SYMBOLS = [
  'custom_labels_current_set',
  'otel_thread_ctx_v1',
  'otel_thread_ctx_nodejs_v1',
  'custom_labels_als_handle',
  'custom_labels_als_identity_hash',
];

describe('customlabels.node on disk', () => {
  test('is named so readers match it (customlabels\\.node$)', () => {
    expect(fs.existsSync(addonPath)).toBe(true);
    expect(addonPath).toMatch(/(^|\/)customlabels\.node$/);
  });

  test('exports custom_labels_abi_version as a global 4-byte OBJECT with default visibility', () => {
    expect(readelf('--dyn-syms')).toMatch(/\s4 OBJECT\s+GLOBAL\s+DEFAULT\s+\d+ custom_labels_abi_version$/m);
  });

  test('exports custom_labels_current_set as a global 8-byte TLS symbol with default visibility', () => {
    expect(readelf('--dyn-syms')).toMatch(/\s8 TLS\s+GLOBAL\s+DEFAULT\s+\d+ custom_labels_current_set$/m);
  });

  test('exports otel_thread_ctx_v1 (OTEP 4947) as a global 8-byte TLS symbol with default visibility', () => {
    expect(readelf('--dyn-syms')).toMatch(/\s8 TLS\s+GLOBAL\s+DEFAULT\s+\d+ otel_thread_ctx_v1$/m);
  });

  test('exports nothing else but the N-API entry points', () => {
    const defined = readelf('--dyn-syms')
      .split('\n')
      .filter((l) => /GLOBAL|WEAK/.test(l) && !/ UND /.test(l))
      .map((l) => l.trim().split(/\s+/).pop());
    expect(defined.sort()).toEqual(
      [
        'custom_labels_abi_version',
        'custom_labels_current_set',
        'otel_thread_ctx_v1',
        'otel_thread_ctx_nodejs_v1',
        'custom_labels_als_handle',
        'custom_labels_als_identity_hash',
        'napi_register_module_v1',
        'node_api_module_get_api_version_v1',
      ].sort(),
    );
  });

  test.each(TLS_SYMBOLS)(`has an R_${machine}_TLSDESC relocation naming %s`, (name) => {
    expect(readelf('-r')).toMatch(new RegExp(`R_${machine}_TLSDESC\\s+[0-9a-f]+\\s+${name}`));
  });

  // Two pointers, the 32-byte otel_thread_ctx_nodejs_v1, and the Parca
  // agent's pointer and int32 (padded): 64 bytes, well inside glibc's static
  // TLS surplus, which readers that add the descriptor argument to the
  // thread pointer rely on.
  test('keeps its thread-local storage to the published variables (PT_TLS memsz 64)', () => {
    const tls = readelf('-l')
      .split('\n')
      .find((l) => l.trim().startsWith('TLS '));
    expect(tls).toBeDefined();
    const memsz = Number.parseInt(tls.trim().split(/\s+/)[5], 16);
    expect(memsz).toBe(64);
  });
});

describe('custom_labels_current_set and otel_thread_ctx_v1 at run time', () => {
  test.each(TLS_SYMBOLS)('the TLS descriptor of %s resolved to static TLS on the main thread', (symbol) => {
    const info = binding.testing.tlsInfo(symbol);
    expect(info.found).toBe(true);
    expect(info.modulePath).toBe(addonPath);
    // What an eBPF reader computes: thread pointer + descriptor argument.
    expect(BigInt.asUintN(64, info.threadPointer + info.argument)).toBe(info.variableAddress);
    expect(info.staticTls).toBe(true);
  });

  test('the two variables are distinct slots', () => {
    expect(binding.testing.tlsInfo('otel_thread_ctx_v1').variableAddress).not.toBe(binding.testing.tlsInfo().variableAddress);
  });

  test('every worker thread reaches its own slot through the same static offset', async () => {
    const main = binding.testing.tlsInfo();
    const results = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise((resolve, reject) => {
            const w = new Worker(
              `const { parentPort } = require('node:worker_threads');
               const info = require(${JSON.stringify(addonPath)}).testing.tlsInfo();
               parentPort.postMessage(info);`,
              { eval: true },
            );
            w.once('message', resolve);
            w.once('error', reject);
          }),
      ),
    );
    for (const info of results) {
      expect(info.staticTls).toBe(true);
      expect(info.argument).toBe(main.argument);
      expect(info.variableAddress).not.toBe(main.variableAddress);
    }
  });

  test('stays loaded (DF_1_NODELETE): a process whose workers load it over and over keeps static TLS', async () => {
    // Each dlopen() of a library with TLS after its dlclose() takes fresh
    // bytes of glibc's small static TLS surplus; were the addon unloaded
    // when its last worker exits, after some dozens of cycles it would fall
    // back to dynamic TLS, which readers assuming static TLS cannot see.
    expect(readelf('-d')).toMatch(/FLAGS_1.*NODELETE/);
    const { code, stdout, stderr } = await runNode(
      `const { Worker } = require('node:worker_threads');
       const src = 'const t = require(' + JSON.stringify(${JSON.stringify(addonPath)}) + ').testing;' +
         "const i = t.tlsInfo(), o = t.tlsInfo('otel_thread_ctx_v1');" +
         "require('node:worker_threads').parentPort.postMessage({ s: i.staticTls && o.staticTls, a: String(i.argument) + '/' + String(o.argument) })";
       (async () => {
         const seen = new Set();
         for (let i = 0; i < 80; i++) {
           const m = await new Promise((resolve, reject) => {
             const w = new Worker(src, { eval: true });
             w.once('message', resolve);
             w.once('error', reject);
           });
           await new Promise((r) => setTimeout(r, 5));
           if (!m.s) { process.stdout.write('dynamic TLS at cycle ' + i); return; }
           seen.add(m.a);
         }
         process.stdout.write('static, ' + seen.size + ' offset(s)');
       })();`,
      { timeoutMs: 55000 }, // 80 workers: slow under qemu-user
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe('static, 1 offset(s)');
  }, 60000);

  test('a process that loads the addon late (after many modules) still gets static TLS', async () => {
    const { code, stdout, stderr } = await runNode(
      `for (const m of ['http','https','zlib','crypto','worker_threads','vm','repl']) require(m);
       const b = require(${JSON.stringify(addonPath)});
       process.stdout.write(String(b.testing.tlsInfo().staticTls && b.testing.tlsInfo('otel_thread_ctx_v1').staticTls));`,
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe('true');
  });
});
