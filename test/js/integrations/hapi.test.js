'use strict';

// customlabels/hapi on @hapi/hapi 21, read from outside: at every
// checkpoint of the request lifecycle the reader, from another process, sees
// exactly the request's method, route path and tenant on the server thread
// (e2e/hapi.js).

const { REGISTERED } = require('./harness');
const { runNode } = require('../helpers');
const e2e = require('./e2e/hapi');


describe.each(['by hand', 'with customlabels/register'])('@hapi/hapi, wired %s', (wiring) => {
  let result;

  beforeAll(async () => {
    result = await e2e.run({ env: wiring === 'by hand' ? {} : REGISTERED });
  }, 180000);

  test('every request was served and the server stopped cleanly', () => {
    expect(result.run.stderr).toBe('');
    expect(result.run.code).toBe(0);
    e2e.served(result);
  });

  test('at every lifecycle checkpoint the reader sees exactly that request\'s labels on the server thread', () => {
    e2e.checkpoints(result);
  });
});

describe('registration', () => {
  test('bad options fail the registration with a TypeError and a stable code; `route: false` leaves the route out; other servers are untouched', async () => {
    const out = await runNode(`
      const Hapi = require('@hapi/hapi');
      const { plugin } = require('./lib/integrations/hapi');
      const { currentLabels } = require('.');
      (async () => {
        const bad = Hapi.server();
        const err = await bad.register({ plugin, options: { labels: 'tenant' } }).catch((e) => e);
        const server = Hapi.server();
        await server.register({ plugin, options: { route: false } });
        await server.register({ plugin }); // once: a no-op
        server.route({ method: 'GET', path: '/x/{id}', handler: () => currentLabels() });
        const res = await server.inject('/x/1');
        const other = Hapi.server();
        other.route({ method: 'GET', path: '/y', handler: () => currentLabels() });
        const untouched = await other.inject('/y');
        console.log(JSON.stringify({ name: err.name, code: err.code, labels: res.result, other: untouched.result }));
      })();
    `);
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({ name: 'TypeError', code: 'ERR_CUSTOMLABELS_INVALID_OPTION', labels: { method: 'GET' }, other: {} });
  });
});

test('a hapi whose Request lacks the wrapped methods: the plugin registers as a no-op with one warning, never an error', async () => {
  const out = await runNode(`
    const { plugin } = require('./lib/integrations/hapi');
    const warnings = [];
    process.on('warning', (w) => warnings.push(w.code));
    // As a future hapi might look: a per-server Request without _lifecycle, or no _core at all.
    class Request { _execute() {} _reply() {} }
    const results = [{ _core: { Request } }, {}].map((server) => plugin.register(server, {}));
    setImmediate(() => console.log(JSON.stringify({ results, warnings, untouched: Request.prototype._execute.name })));
  `);
  expect(out.stderr).toMatch(/^\(node:\d+\) \[CUSTOMLABELS_UNSUPPORTED_FRAMEWORK\] Warning: customlabels\/hapi: @hapi\/hapi of an unknown version is not supported \(supported: @hapi\/hapi >=21\.0\.0 <22\): Request#_lifecycle is missing\. It is left unpatched/);
  expect(JSON.parse(out.stdout)).toEqual({ results: [null, null], warnings: ['CUSTOMLABELS_UNSUPPORTED_FRAMEWORK'], untouched: '_execute' });
});
