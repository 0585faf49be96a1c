'use strict';

// Proof from outside for customlabels/otel (e2e/otel.js): an HTTP service
// traced by the real OpenTelemetry SDK serves concurrent requests and hands
// each to a worker thread that continues the trace; at each checkpoint the
// reader sees exactly the span's ids and labels, as labels and as the OTel
// record; where no span is active, neither.

const e2e = require('./e2e/otel');

let result;
beforeAll(async () => {
  result = await e2e.run();
}, 120000);

test('the fixture ran every checkpoint and exported its spans', () => {
  expect(result.run.stderr).toBe('');
  expect(result.run.code).toBe(0);
  e2e.served(result);
});

test('on the main thread and in the worker the reader sees the span as labels and as the OTel record', () => {
  e2e.traced(result);
});

test('where no span is active the reader sees neither labels nor a record', () => {
  e2e.untraced(result);
});
