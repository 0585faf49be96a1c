'use strict';

// Load generator: `count` requests over `connections` keep-alive
// connections, each request waiting for the previous one on its connection.
// `path` defaults to /hello; `{i}` in it becomes the request's number
// (/api/users/{i}: every request asks for another id). `request` (JSON) may
// give a method, headers and a body (a bench/apps module's `request`).
//   node bench/http-load.js <port> <count> [connections] [path] [request]

const http = require('node:http');

const [port, count, connections = 16] = process.argv.slice(2, 5).map(Number);
const pathPattern = process.argv[5] ?? '/hello';
const spec = process.argv[6] === undefined ? {} : JSON.parse(process.argv[6]);
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const customers = ['acme', 'globex', 'initech', 'umbrella'];
let sent = 0;

function one() {
  if (sent >= count) return Promise.resolve();
  const i = sent++;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: spec.method ?? 'GET',
        path: pathPattern.replace('{i}', String(i)),
        agent,
        headers: { 'x-customer': customers[i % 4], ...spec.headers },
      },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end(spec.body);
  }).then(one);
}

Promise.all(Array.from({ length: connections }, one)).then(() => {
  agent.destroy();
  process.stdout.write('done\n');
});
