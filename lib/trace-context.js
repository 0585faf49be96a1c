'use strict';

// The trace ids a label set carries into its thread context record
// (OTEP 4947): what lib/encoder.js writes into the scratch header for
// native build(). Sets built by plain withLabels inherit their parent's.

const { TRACE_SET, TRACE_CLEAR } = require('./protocol');

// A lowercase or uppercase hex digit's value, or -1.
function hexDigit(c) {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

// Decodes `hex` (2 * out.length hex digits) into `out`; false if it is not.
function decodeHex(hex, out) {
  if (typeof hex !== 'string' || hex.length !== out.length * 2) return false;
  for (let i = 0; i < out.length; i++) {
    const hi = hexDigit(hex.charCodeAt(2 * i));
    const lo = hexDigit(hex.charCodeAt(2 * i + 1));
    if (hi < 0 || lo < 0) return false;
    out[i] = (hi << 4) | lo;
  }
  return true;
}

class TraceContext {
  constructor(op) {
    this.op = op;
    this.traceId = new Uint8Array(16);
    this.spanId = new Uint8Array(8);
    this.flags = 0;
    // The set last built for these ids and the parent it was built over
    // (lib/api.js).
    this.lastParent = undefined;
    this.lastSet = undefined;
  }

  // The ids of a W3C span context (32 and 16 hex digits, the trace flags
  // byte), or null if they are not well-formed.
  static fromHex(traceId, spanId, flags) {
    const t = new TraceContext(TRACE_SET);
    if (!decodeHex(traceId, t.traceId) || !decodeHex(spanId, t.spanId)) return null;
    t.flags = flags & 0xff;
    return t;
  }
}

// The new set carries no trace ids.
TraceContext.CLEAR = Object.freeze(new TraceContext(TRACE_CLEAR));

module.exports = { TraceContext, decodeHex };
