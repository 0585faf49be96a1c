'use strict';

// Every HTTP request, on any server, in the table of integrations
// (lib/integrations/index.js): register only. Through the
// diagnostics_channel messages Node.js publishes as a server receives a
// request (http/requests.js says what they label): 'http.server.request.start'
// (node:http and https, every Node.js line customlabels supports) and
// 'http2.server.stream.start' (http2, compat API included: Node.js 22.17+
// and 24.2+; earlier lines publish none, and an http2 server's requests are
// labelled by the framework integrations alone).

const { defineIntegration } = require('../kit/integration');

// (Loaded once: the patches run for every request.)
let requests;
const load = () => (requests ??= require('./requests'));

const unpatch = () => load().unpatchHttp();

const integration = defineIntegration({
  name: 'http',
  title: 'Any HTTP server (node:http, https, http2)',
  subpath: null,
  labels: ['method', 'route'],
  packages: {},
  internals: [],
  reach: [
    { kind: 'channel', builtin: 'node:http', channel: 'http.server.request.start', patch: (message, context) => load().enterRequest(message, context), unpatch },
    { kind: 'channel', builtin: 'node:http2', channel: 'http2.server.stream.start', patch: (message, context) => load().enterStream(message, context), unpatch },
  ],
});

module.exports = integration;
