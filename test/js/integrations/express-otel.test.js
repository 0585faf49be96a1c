'use strict';

// customlabels/express next to OpenTelemetry's Express instrumentation:
// labels and spans agree on the route template, the app still works, and
// patching twice (or from two copies) patches once.

const path = require('node:path');
const { runNode } = require('../helpers');

const fixture = path.join(__dirname, '..', 'fixtures', 'express-otel.js');

// The instrumentation hooks the package named 'express' (Express 5 here;
// Express 4 is installed under an alias it does not recognise).
describe.each(['express'])('%s with @opentelemetry/instrumentation-express', (expressModule) => {
  test('handlers see the route template, spans carry the same http.route', async () => {
    const { code, stdout, stderr } = await runNode(`process.argv[2] = ${JSON.stringify(expressModule)}; require(${JSON.stringify(fixture)});`);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const out = JSON.parse(stdout.trim().split('\n').pop());
    expect(out.seen).toEqual([
      { method: 'GET', route: '/api/users/:id' },
      { method: 'GET', route: '/api/users/:id' },
    ]);
    expect(out.serverRoutes).toEqual(['/api/users/:id', '/api/users/:id']);
    expect(out.layers).toBeGreaterThanOrEqual(6); // OpenTelemetry's layer spans were made: its patch ran
  });
});

test('instrumenting twice wraps Router#use and Layer#handle_request once', () => {
  const express = require('express4');
  const { instrument } = require('../../../lib/integrations/express');
  instrument(express);
  const use = express.Router.use;
  const Layer = require('express4/lib/router/layer');
  const handle = Layer.prototype.handle_request;
  instrument(express);
  expect(express.Router.use).toBe(use);
  expect(Layer.prototype.handle_request).toBe(handle);
  expect(use.__wrapped).toBeUndefined(); // no shimmer markers for OpenTelemetry to unwrap
});
