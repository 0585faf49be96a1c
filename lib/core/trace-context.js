'use strict';

// The trace ids a label set carries into its thread context record
// (OTEP 4947): what lib/core/encoder.js writes into the scratch header for
// native build(). Sets built by plain withLabels inherit their parent's.
// The ids stay the hex strings the span context has; the encoder writes
// them into the scratch as bytes (Buffer#write, 'hex'), so a span costs no
// typed arrays and no decoding in JS.

const { TRACE_SET, TRACE_CLEAR } = require('./protocol');

const TRACE_HEX = /^[0-9a-fA-F]{32}$/;
const SPAN_HEX = /^[0-9a-fA-F]{16}$/;

class TraceContext {
  // `traceId`, `spanId`: 32 and 16 hex digits (with TRACE_SET).
  constructor(op, traceId = '', spanId = '', flags = 0) {
    this.op = op;
    this.traceId = traceId;
    this.spanId = spanId;
    this.flags = flags;
    // The set last built for these ids and the parent it was built over
    // (lib/core/api.js).
    this.lastParent = undefined;
    this.lastSet = undefined;
  }

  // The ids of a W3C span context (32 and 16 hex digits, the trace flags
  // byte), or null if they are not well-formed.
  static fromHex(traceId, spanId, flags) {
    if (typeof traceId !== 'string' || typeof spanId !== 'string' || !TRACE_HEX.test(traceId) || !SPAN_HEX.test(spanId)) {
      return null;
    }
    return new TraceContext(TRACE_SET, traceId, spanId, flags & 0xff);
  }
}

// The new set carries no trace ids.
TraceContext.CLEAR = Object.freeze(new TraceContext(TRACE_CLEAR));

module.exports = { TraceContext };
