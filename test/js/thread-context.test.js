'use strict';

// The OTEP 4947 thread context record as the addon publishes it, checked
// through raw words (otel_thread_ctx_v1 read with peekWord, as a reader
// reads it) against the record the label set carries; and the off switch.

const { withLabels } = require('../..');
const { addonPath, runNode } = require('./helpers');

const binding = require(addonPath);
const slotAddress = () => binding.testing.tlsInfo('otel_thread_ctx_v1').variableAddress;

test('every labelled scope publishes its record through otel_thread_ctx_v1 and restores the previous one', async () => {
  expect(binding.testing.peekWord(slotAddress())).toBe(0n);
  await withLabels({ route: '/a' }, async () => {
    const outer = binding.testing.peekWord(slotAddress());
    expect(outer).not.toBe(0n);
    const bytes = binding.testing.currentRecord();
    expect(bytes[24]).toBe(1); // valid
    expect(bytes.subarray(0, 24).equals(Buffer.alloc(24))).toBe(true); // no trace ids
    // The header's attrs_data_size, read through the pointer itself.
    expect(Number(binding.testing.peekWord(outer + 24n) >> 16n) & 0xffff).toBe(bytes.readUInt16LE(26));
    await withLabels({ tenant: 'acme' }, async () => {
      await null;
      const inner = binding.testing.peekWord(slotAddress());
      expect(inner).not.toBe(0n);
      expect(inner).not.toBe(outer);
    });
    expect(binding.testing.peekWord(slotAddress())).toBe(outer);
  });
  expect(binding.testing.peekWord(slotAddress())).toBe(0n);
  expect(require('../..').strategy().threadContext).toBe('published');
});

test('CUSTOMLABELS_THREAD_CONTEXT=0: no records, no process context, labels as before', async () => {
  const { code, stdout, stderr } = await runNode(
    `const { withLabels, currentLabels, strategy } = require(${JSON.stringify(require.resolve('../..'))});
     const b = require(${JSON.stringify(addonPath)});
     const slot = b.testing.tlsInfo('otel_thread_ctx_v1').variableAddress;
     const out = withLabels({ route: '/a' }, () => ({ labels: currentLabels(), record: String(b.testing.peekWord(slot)) }));
     out.strategy = strategy().threadContext;
     out.mapped = require('fs').readFileSync('/proc/self/maps', 'utf8').includes('OTEL_CTX');
     process.stdout.write(JSON.stringify(out));`,
    { env: { ...process.env, CUSTOMLABELS_THREAD_CONTEXT: '0' } },
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toEqual({ labels: { route: '/a' }, record: '0', strategy: 'off', mapped: false });
});

test('the publisher stores both pointers, through one view of the adjacent slots or through two', () => {
  const { createPublisher } = require('../../lib/core/publisher');
  const setSlot = binding.testing.tlsInfo().variableAddress;
  const recordSlot = slotAddress();
  expect(binding.tlsSlotPair()).not.toBeNull(); // adjacent in this build
  for (const b of [binding, Object.create(binding, { tlsSlotPair: { value: () => null } })]) {
    const publisher = createPublisher(b, true);
    // Raw words only: nothing dereferences them before they are cleared.
    publisher.install({ address: 0x1230n, record: 0x4560n });
    const seen = [binding.testing.peekWord(setSlot), binding.testing.peekWord(recordSlot)];
    publisher.install(null);
    expect(seen).toEqual([0x1230n, 0x4560n]);
    expect([binding.testing.peekWord(setSlot), binding.testing.peekWord(recordSlot)]).toEqual([0n, 0n]);
  }
});
