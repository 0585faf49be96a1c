'use strict';

// A real HTTP client on 127.0.0.1 for the integration tests: keep-alive,
// bounded concurrency, optional chunked bodies sent in delayed pieces; over
// HTTP/1.1, HTTPS (a server's self-signed certificate accepted) or HTTP/2
// (cleartext, one session).

const http = require('node:http');
const https = require('node:https');

// Sends `chunks` (or nothing) into `req` in delayed pieces, then ends it.
function sendBody(req, chunks) {
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
}

function request(port, { method = 'GET', path, headers = {}, chunks = null, agent, protocol = 'http' }) {
  return new Promise((resolve, reject) => {
    const client = protocol === 'https' ? https : http;
    const tls = protocol === 'https' ? { rejectUnauthorized: false } : {};
    const req = client.request({ host: '127.0.0.1', port, method, path, headers, agent, ...tls }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    sendBody(req, chunks);
  });
}

// One request on an HTTP/2 session.
function request2(session, { method = 'GET', path, headers = {}, chunks = null }) {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':method': method, ':path': path, ...headers }, { endStream: chunks === null });
    let status;
    let body = '';
    req.setEncoding('utf8');
    req.on('response', (h) => (status = h[':status']));
    req.on('data', (d) => (body += d));
    req.on('end', () => resolve({ status, body }));
    req.on('error', reject);
    if (chunks !== null) sendBody(req, chunks);
  });
}

// Runs `requests` with at most `concurrency` in flight; `protocol`: http
// (the default), https or http2.
async function load(port, requests, concurrency = 8, { protocol = 'http' } = {}) {
  let send;
  let close;
  if (protocol === 'http2') {
    const session = require('node:http2').connect(`http://127.0.0.1:${port}`);
    send = (r) => request2(session, r);
    close = () => session.close();
  } else {
    const agent = new (protocol === 'https' ? https : http).Agent({ keepAlive: true, maxSockets: concurrency });
    send = (r) => request(port, { ...r, agent, protocol });
    close = () => agent.destroy();
  }
  const results = new Array(requests.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const i = next++;
        results[i] = await send(requests[i]);
      }
    }),
  );
  close();
  return results;
}

// A JSON body split into `pieces` chunks (sent with Transfer-Encoding: chunked).
function chunkedJson(value, pieces = 4) {
  const s = JSON.stringify(value);
  const size = Math.ceil(s.length / pieces);
  return Array.from({ length: pieces }, (_, i) => s.slice(i * size, (i + 1) * size));
}

module.exports = { request, load, chunkedJson };
