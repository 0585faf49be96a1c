'use strict';

// The examples' built-in client: keeps `concurrency` keep-alive requests in
// flight against 127.0.0.1:port for `seconds`, tenants in turn, every third
// a POST /api/orders and the rest GET /api/users/<n>; then calls done().

const http = require('node:http');

function steadyLoad(port, seconds, done, concurrency = 4) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const tenants = ['acme', 'globex', 'initech'];
  const stopAt = Date.now() + seconds * 1000;
  let n = 0;
  const loop = () => {
    if (Date.now() > stopAt) return;
    const i = n++;
    const post = i % 3 === 0;
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        agent,
        method: post ? 'POST' : 'GET',
        path: post ? '/api/orders' : `/api/users/${i}`,
        headers: { 'x-tenant': tenants[i % 3], 'content-type': 'application/json' },
      },
      (res) => res.resume().on('end', loop),
    );
    req.on('error', () => {}); // requests in flight when the load stops
    req.end(post ? JSON.stringify({ items: [1, 2, 3] }) : undefined);
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
