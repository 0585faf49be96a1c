'use strict';

// The examples' built-in client: keeps `concurrency` keep-alive requests in
// flight against 127.0.0.1:port for `seconds`, tenants in turn; then calls
// done(). Request i is requestOf(i): { method, path, body } (by default
// every third a POST /api/orders and the rest GET /api/users/<i>).

const http = require('node:http');

const restRequest = (i) => (i % 3 === 0 ? { method: 'POST', path: '/api/orders', body: JSON.stringify({ items: [1, 2, 3] }) } : { method: 'GET', path: `/api/users/${i}` });

function steadyLoad(port, seconds, done, { concurrency = 4, requestOf = restRequest } = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const tenants = ['acme', 'globex', 'initech'];
  const stopAt = Date.now() + seconds * 1000;
  let n = 0;
  const loop = () => {
    if (Date.now() > stopAt) return;
    const i = n++;
    const { method, path, body } = requestOf(i);
    const req = http.request(
      { host: '127.0.0.1', port, agent, method, path, headers: { 'x-tenant': tenants[i % 3], 'content-type': 'application/json' } },
      (res) => res.resume().on('end', loop),
    );
    req.on('error', () => {}); // requests in flight when the load stops
    req.end(body);
  };
  for (let k = 0; k < concurrency; k++) loop();
  setTimeout(() => {
    agent.destroy();
    done();
  }, seconds * 1000 + 100);
}

// Busy CPU for `ms` milliseconds: what the profiler attributes.
function burn(ms) {
  const end = process.hrtime.bigint() + BigInt(ms * 1e6);
  while (process.hrtime.bigint() < end);
}

const secondsArg = () => Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 30;

module.exports = { steadyLoad, burn, secondsArg };
