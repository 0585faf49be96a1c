'use strict';

// The scratch protocol is defined once per side: lib/core/protocol.js and
// src/core/scratch_protocol.h. This test reads both and requires them to
// name the same constants with the same values, then drives the native
// build() with what lib/ never sends.

const fs = require('node:fs');
const path = require('node:path');
const protocol = require('../../lib/core/protocol');
const { Encoder } = require('../../lib/core/encoder');
const { readLabels } = require('../../lib/core/labels');
const { root, addonPath } = require('./helpers');

// kNextOffsetOffset -> NEXT_OFFSET_OFFSET
const jsName = (cppName) =>
  cppName
    .slice(1)
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase();

function cppConstants() {
  const header = fs.readFileSync(path.join(root, 'src', 'core', 'scratch_protocol.h'), 'utf8');
  const out = {};
  for (const m of header.matchAll(/constexpr\s+\w+\s+(k\w+)\s*=\s*(0x[0-9a-f]+|\d+)u?;/gi)) {
    out[jsName(m[1])] = Number(m[2]);
  }
  return out;
}

test('lib/core/protocol.js and src/core/scratch_protocol.h define the same constants', () => {
  const cpp = cppConstants();
  expect(Object.keys(cpp).length).toBeGreaterThanOrEqual(8);
  expect(cpp).toEqual({ ...protocol });
});

test('each sentinel has one meaning and one name', () => {
  // Three fields, three names (equal values are fine: they never share a field).
  expect(Object.keys(protocol)).toEqual(expect.arrayContaining(['VALUE_REMOVED', 'DID_NOT_FIT', 'NEEDED_SATURATED']));
  const src = fs.readFileSync(path.join(root, 'lib', 'core', 'slab.js'), 'utf8') + fs.readFileSync(path.join(root, 'lib', 'core', 'encoder.js'), 'utf8');
  expect(src).not.toMatch(/0xffffffff/i); // every use goes through a name
});

describe('native build() with inputs lib/ never sends', () => {
  const binding = require(addonPath);
  const encode = (labels) => {
    const encoder = new Encoder();
    const n = encoder.encode(readLabels(labels));
    return { encoder, n };
  };

  test('a parent that is not one of our sets is a TypeError', () => {
    const { encoder, n } = encode({ a: '1' });
    const junk = new ArrayBuffer(256);
    new Uint8Array(junk).fill(0x41);
    expect(() => binding.build(junk, 0, encoder.scratch, n, new ArrayBuffer(4096), 0)).toThrow(
      expect.objectContaining({ name: 'TypeError', message: 'not a customlabels label set' }),
    );
    expect(() => binding.setCurrent(junk, 8)).toThrow('not a customlabels label set');
  });

  test('lengths that run past the scratch buffer are a RangeError', () => {
    const { encoder, n } = encode({ a: '1' });
    new Uint32Array(encoder.scratch)[protocol.HEADER_BYTES / 4] = 0xfffffff0;
    expect(() => binding.build(null, 0, encoder.scratch, n, new ArrayBuffer(4096), 0)).toThrow(
      expect.objectContaining({ name: 'RangeError', message: 'scratch overflow' }),
    );
    expect(() => binding.build(null, 0, encoder.scratch, 0x7fffffff, new ArrayBuffer(4096), 0)).toThrow(
      'scratch too small',
    );
  });

  test('a slab range over the scratch buffer or misaligned is a RangeError', () => {
    const { encoder, n } = encode({ a: '1' });
    // Errors made in C++ come from another realm than Jest's: compare names.
    const rangeError = expect.objectContaining({ name: 'RangeError', message: expect.stringMatching(/overlapping/) });
    expect(() => binding.build(null, 0, encoder.scratch, n, encoder.scratch, 1024)).toThrow(rangeError);
    expect(() => binding.build(null, 0, encoder.scratch, n, new ArrayBuffer(4096), 12)).toThrow(rangeError);
  });

  test('a set that does not fit reports DID_NOT_FIT and what it needs, and writes nothing', () => {
    const { encoder, n } = encode({ key: 'v'.repeat(100) });
    const slab = new ArrayBuffer(128);
    binding.build(null, 0, encoder.scratch, n, slab, 64);
    expect(encoder.nextOffset()).toBe(protocol.DID_NOT_FIT);
    expect(encoder.needed()).toBe(48 + 32 + 3 + 100); // header, own address, token, record pointer; one label
    expect(encoder.address()).toBe(0n);
    expect(new Uint8Array(slab).every((b) => b === 0)).toBe(true);
  });
});
