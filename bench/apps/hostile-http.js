'use strict';

// bench/hostile.js --app http: a node:http server with no framework (the
// HTTP integration labels its requests under register, x-tenant as a header
// label), answering every request with the body Apollo's app gives, so the
// same clients judge it. Announces {port}; on SIGUSR2 prints {rss, heapUsed,
// errors} and exits.

const http = require('node:http');

const errors = [];
process.on('uncaughtException', (err) => errors.push(String(err && err.stack)));
const BODY = '{"data":{"hello":"world"}}\n';

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) });
    res.end(BODY);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('SIGUSR2', () => {
  if (global.gc) global.gc();
  const { rss, heapUsed } = process.memoryUsage();
  process.stdout.write(`${JSON.stringify({ rss, heapUsed, errors })}\n`);
  process.exit(0);
});
