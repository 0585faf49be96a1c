'use strict';

// A real HTTP client on 127.0.0.1 for the integration tests: keep-alive,
// bounded concurrency, optional chunked bodies sent in delayed pieces.

const http = require('node:http');

function request(port, { method = 'GET', path, headers = {}, chunks = null, agent }) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    if (chunks === null) {
      req.end();
      return;
    }
    let i = 0;
    const next = () => {
      if (i === chunks.length) return req.end();
      req.write(chunks[i++]);
      setTimeout(next, 5);
    };
    next();
  });
}

// Runs `requests` with at most `concurrency` in flight.
async function load(port, requests, concurrency = 8) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const results = new Array(requests.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const i = next++;
        results[i] = await request(port, { ...requests[i], agent });
      }
    }),
  );
  agent.destroy();
  return results;
}

// A JSON body split into `pieces` chunks (sent with Transfer-Encoding: chunked).
function chunkedJson(value, pieces = 4) {
  const s = JSON.stringify(value);
  const size = Math.ceil(s.length / pieces);
  return Array.from({ length: pieces }, (_, i) => s.slice(i * size, (i + 1) * size));
}

module.exports = { request, load, chunkedJson };
